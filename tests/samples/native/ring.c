#include <stdlib.h>

#include "ring.h"

/* How much a ring writes to stderr. */
enum ring_log_level { RING_LOG_QUIET, RING_LOG_DEBUG };

static enum ring_log_level log_level = RING_LOG_QUIET;

/* Counters kept for debugging. */
struct ring_stats {
    size_t pushes;
    size_t pops;
};

static struct ring_stats stats;

/* The slot after index, wrapping at the end. */
static size_t slot_after(const ring_t *ring, size_t index)
{
    return (index + 1) % ring->capacity;
}

ring_t *ring_new(size_t capacity)
{
    ring_t *ring = malloc(sizeof *ring);
    if (ring == NULL) {
        return NULL;
    }
    ring->capacity = capacity ? capacity : RING_DEFAULT_CAPACITY;
    ring->slots = calloc(ring->capacity, sizeof *ring->slots);
    ring->head = 0;
    ring->count = 0;
    return ring;
}

void ring_free(ring_t *ring)
{
    if (ring != NULL) {
        free(ring->slots);
        free(ring);
    }
}

ring_status ring_push(ring_t *ring, int value)
{
    if (ring->count == ring->capacity) {
        return RING_FULL;
    }
    ring->slots[(ring->head + ring->count) % ring->capacity] = value;
    ring->count++;
    stats.pushes++;
    return RING_OK;
}

ring_status ring_pop(ring_t *ring, int *out)
{
    if (ring->count == 0) {
        return RING_EMPTY;
    }
    *out = ring->slots[ring->head];
    ring->head = slot_after(ring, ring->head);
    ring->count--;
    stats.pops++;
    return RING_OK;
}

size_t ring_drain(ring_t *ring, ring_visit_fn visit, void *user)
{
    size_t drained = 0;
    int value;
    while (ring_pop(ring, &value) == RING_OK) {
        visit(value, user);
        drained++;
    }
    return drained;
}
