#include "lru.h"

namespace cache {
namespace detail {

std::size_t stable_hash(const std::string& key) {
  std::size_t hash = 14695981039346656037ull;
  for (char c : key) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  return hash;
}

}  // namespace detail

LruCache::LruCache(std::size_t capacity, Policy policy) : capacity_(capacity), policy_(policy) {}

LruCache::~LruCache() = default;

bool LruCache::lookup(const Key& key, std::string* out) {
  auto found = index_.find(key);
  if (found == index_.end()) {
    return false;
  }
  if (policy_ == Policy::LeastRecent) {
    entries_.splice(entries_.begin(), entries_, found->second);
  }
  *out = found->second->second;
  return true;
}

void LruCache::store(const Key& key, std::string value) {
  auto found = index_.find(key);
  if (found != index_.end()) {
    found->second->second = std::move(value);
    return;
  }
  if (index_.size() >= capacity_) {
    evict();
  }
  entries_.emplace_front(key, std::move(value));
  index_[key] = entries_.begin();
}

void LruCache::evict() {
  index_.erase(entries_.back().first);
  entries_.pop_back();
}

bool LruCache::operator==(const LruCache& other) const {
  return entries_ == other.entries_;
}

}  // namespace cache
