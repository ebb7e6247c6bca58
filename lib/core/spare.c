/* spare.c: a context's one spare workspace block (core.h: why), so that repeated solves on a
 * context do not take fresh pages for their largest workspace each time. */
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>
#include "lib/core/core.h"

struct mixi_spare {
    pthread_mutex_t lock; /* solves on one context may run in several threads */
    void *block;          /* NULL or a mixi_malloc block of `bytes`, out of the live count */
    size_t bytes;
    size_t max; /* a 16th of the machine's memory */
};

mixi_spare *mixi_spare_create(void)
{
    mixi_spare *s = mixi_malloc(sizeof *s);
    if (!s) return NULL;
    if (pthread_mutex_init(&s->lock, NULL)) {
        mixi_free(s);
        return NULL;
    }
    s->block = NULL;
    s->bytes = 0;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    s->max = pages > 0 && page > 0 && (uintmax_t)pages <= SIZE_MAX / (uintmax_t)page
                 ? (size_t)pages * (size_t)page / 16
                 : MIXI_SPARE_MIN;
    return s;
}

void mixi_spare_destroy(mixi_spare *s)
{
    if (!s) return;
    if (s->block) {
        mixi_alloc_live_adjust(1);
        mixi_free(s->block);
    }
    pthread_mutex_destroy(&s->lock);
    mixi_free(s);
}

int mixi_spare_take(mixi_spare *s, size_t bytes, void **p)
{
    *p = NULL;
    if (!s || bytes < MIXI_SPARE_MIN) return MIX_SUCCESS;
    pthread_mutex_lock(&s->lock);
    /* Up to twice the request: a larger spare stays for a larger solve. */
    const int fits = s->block && bytes <= s->bytes && s->bytes / 2 <= bytes;
    /* An allocation as any other for the tests that make the n-th one fail. */
    const int fail = fits && mixi_alloc_should_fail();
    if (fits && !fail) {
        *p = s->block;
        s->block = NULL;
        s->bytes = 0;
    }
    pthread_mutex_unlock(&s->lock);
    if (*p) mixi_alloc_live_adjust(1);
    return fail ? MIX_ERR_ALLOC : MIX_SUCCESS;
}

int mixi_spare_keep(mixi_spare *s, void *p)
{
    if (!s || !p) return 0;
    const size_t bytes = mixi_block_bytes(p);
    /* Only mixi_malloc's huge-page-aligned blocks: a spare serves any request of its size. */
    if (bytes < MIXI_SPARE_MIN || bytes > s->max || (uintptr_t)p % MIXI_HUGE_ALIGN) return 0;
    void *dropped = p;
    pthread_mutex_lock(&s->lock);
    if (!s->block || s->bytes < bytes) { /* the larger of the two stays */
        dropped = s->block;
        s->block = p;
        s->bytes = bytes;
    }
    pthread_mutex_unlock(&s->lock);
    if (dropped == p) return 0;
    mixi_alloc_live_adjust(-1); /* p left the live count */
    if (dropped) {
        mixi_alloc_live_adjust(1);
        mixi_free(dropped);
    }
    return 1;
}
