// lru.h: a least-recently-used cache of strings.
#pragma once

#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>

#if defined(_WIN32)
#define CACHE_API __declspec(dllexport)
#else
#define CACHE_API __attribute__((visibility("default")))
#endif

namespace cache {
namespace detail {

// Hashes a key the same way on every platform.
std::size_t stable_hash(const std::string& key);

}  // namespace detail

// Which entry goes when the cache is full.
enum class Policy { LeastRecent, Oldest };

// The key type every cache uses.
using Key = std::string;

// A cache that forgets its least recently used entry when full.
class CACHE_API LruCache {
 public:
  explicit LruCache(std::size_t capacity, Policy policy = Policy::LeastRecent);
  ~LruCache();

  // Looks up key; true and the value in out when it is cached.
  bool lookup(const Key& key, std::string* out);

  // Stores value under key, evicting an entry when the cache is full.
  void store(const Key& key, std::string value);

  // How many entries the cache holds.
  std::size_t size() const { return index_.size(); }

  // Two caches are equal when they hold the same entries in the same order.
  bool operator==(const LruCache& other) const;

 private:
  using Entry = std::pair<Key, std::string>;
  void evict();

  std::size_t capacity_;
  Policy policy_;
  std::list<Entry> entries_;
  std::unordered_map<Key, std::list<Entry>::iterator> index_;
};

}  // namespace cache
