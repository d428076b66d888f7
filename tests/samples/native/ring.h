/* ring.h: a fixed-size ring buffer of ints. */
#ifndef RING_H
#define RING_H

#include <stddef.h>

#if defined(_WIN32)
#define RING_API __declspec(dllexport)
#else
#define RING_API __attribute__((visibility("default")))
#endif

/* How many slots a ring holds unless told otherwise. */
#define RING_DEFAULT_CAPACITY 64

/* The smaller of two sizes. */
#define RING_MIN(a, b) ((a) < (b) ? (a) : (b))

/* What a ring operation reports. */
typedef enum {
    RING_OK = 0,
    RING_FULL,
    RING_EMPTY
} ring_status;

/* A ring of ints: head is the next slot to read, count how many are held. */
typedef struct {
    int *slots;
    size_t capacity;
    size_t head;
    size_t count;
} ring_t;

/* Called with each value a drain removes. */
typedef void (*ring_visit_fn)(int value, void *user);

/* Makes an empty ring with room for capacity values. */
RING_API ring_t *ring_new(size_t capacity);

/* Frees a ring and its slots. */
RING_API void ring_free(ring_t *ring);

/* Appends a value; RING_FULL when there is no room left. */
RING_API ring_status ring_push(ring_t *ring, int value);

/* Removes the oldest value into out; RING_EMPTY when there is none. */
RING_API ring_status ring_pop(ring_t *ring, int *out);

/* Removes every value, oldest first, handing each one to visit. */
RING_API size_t ring_drain(ring_t *ring, ring_visit_fn visit, void *user);

#endif /* RING_H */
