/* termgames._unrail: the compiled core of the MonUnrail unrailing solver.
 *
 * The same game as termgames/rules/monunrail/cores.py (which documents it and
 * is the pure-Python fallback): a position is a set of grid cells, a move
 * removes 1 to 3 cells in a line of one row or column, the value of a
 * position is the XOR of the values of its orthogonally connected components
 * and the value of a component is the mex of the values one move away.
 *
 * A shape is a 128-bit int: bit r * 16 + c for the cell in row r (0..7),
 * column c (0..15), normalised so that row 0 and column 0 hold a cell.  So
 * any shape up to 8 rows by 16 columns fits (the Python side turns a shape
 * that is taller than wide first).  Shapes of up to 8 columns, most of them,
 * are solved on 64-bit 8 x 8 boards (bit 8 r + c), where every step is
 * cheaper.
 *
 * One open-addressing hash table (buckets of one cache line) maps the
 * canonical form of each solved connected shape (the least of its images
 * under rotation and reflection) to its value.  A position is valued by
 * splitting it into pieces with a bit-parallel flood fill and XORing the
 * pieces' values.  Measured on 5x5: storing all 8 images instead (no
 * canonical form to compute) or the values of disconnected positions made
 * the table 8 to 16 times larger and the solver slower, as every probe then
 * missed the caches; a second, denser table for 8 x 8 keys did not pay
 * either.  solve() prefetches the buckets of all children before it probes
 * them, so the misses that remain overlap.
 *
 * solve() runs without the GIL (so a game's screen stays live while its AI
 * thinks), behind a per-core lock; every so often it takes the GIL back for
 * a moment to let Ctrl-C through and to call a progress callable, which may
 * raise to end the solve.  A table never grows past the core's limit (bytes):
 * LimitReached instead.  Whatever stops a solve, every class finished stays.
 *
 * A shape or position that is its own half turn, where no removal meets its
 * own image, is 0 at once (see mirror_zero8: the second player mirrors).
 *
 * Shapes of two rows have a core of their own, Strip, below.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "pythread.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#ifndef __SIZEOF_INT128__
#error "termgames._unrail needs a compiler with unsigned __int128; the pure-Python solver is used instead"
#endif

typedef unsigned __int128 u128;

#define STRIDE 16
#define ROWS 8
#define MAX_VALUE 1023 /* 128 cells: < 5 * 128 moves, so mex < 640; xors < 1024 */

static const uint64_t COL0_64 = 0x0001000100010001ULL;
#define COL0 (((u128)COL0_64 << 64) | COL0_64)
#define NOT_COL0 (~COL0)
#define NOT_COL15 (~(COL0 << 15))
#define RIGHT_HALF (((u128)0xFF00FF00FF00FF00ULL << 64) | 0xFF00FF00FF00FF00ULL) /* columns 8..15 */

static inline int ctz128(u128 x)
{
    uint64_t lo = (uint64_t)x;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t)(x >> 64));
}

static inline int bitlen128(u128 x)
{
    uint64_t hi = (uint64_t)(x >> 64);
    if (hi)
        return 128 - __builtin_clzll(hi);
    uint64_t lo = (uint64_t)x;
    return lo ? 64 - __builtin_clzll(lo) : 0;
}

/* The columns in use, as a 16-bit pattern. */
static inline unsigned columns(u128 x)
{
    uint64_t f = (uint64_t)x | (uint64_t)(x >> 64);
    f |= f >> 32;
    f |= f >> 16;
    return (unsigned)(f & 0xFFFF);
}

/* Move a non-empty position to the origin: drop empty rows and columns at
 * the top and left.  Shifting right by whole columns is safe because every
 * bit that moves into the row above comes from a column left of the
 * leftmost used one, so it is 0. */
static inline u128 normalise(u128 x)
{
    x >>= (ctz128(x) / STRIDE) * STRIDE;
    return x >> __builtin_ctz(columns(x));
}

/* The cells orthogonally connected to those of seed, within x. */
static inline u128 flood(u128 seed, u128 x)
{
    u128 c = seed, prev;
    do {
        prev = c;
        c |= (((c << 1) & NOT_COL0) | ((c >> 1) & NOT_COL15) | (c << STRIDE) | (c >> STRIDE)) & x;
    } while (c != prev);
    return c;
}

/* ------------------------------------------------------------------------
 * Symmetry: the canonical form of a shape is the least of its images under
 * the 8 rotations and reflections (4 for shapes wider than 8 columns, whose
 * transposes do not fit the frame), each moved to the origin.  Shapes up to
 * 8 x 8 are turned in a 64-bit 8 x 8 bitboard with the usual bit tricks.
 * --------------------------------------------------------------------- */

/* stride 16 (first 8 columns) <-> stride 8 */
static inline uint64_t lanes_to_bytes(uint64_t x)
{
    x &= 0x00FF00FF00FF00FFULL;
    x = (x | x >> 8) & 0x0000FFFF0000FFFFULL;
    return (x | x >> 16) & 0x00000000FFFFFFFFULL;
}

static inline uint64_t bytes_to_lanes(uint64_t x)
{
    x &= 0x00000000FFFFFFFFULL;
    x = (x | x << 16) & 0x0000FFFF0000FFFFULL;
    return (x | x << 8) & 0x00FF00FF00FF00FFULL;
}

static inline uint64_t to_board8(u128 k)
{
    return lanes_to_bytes((uint64_t)k) | lanes_to_bytes((uint64_t)(k >> 64)) << 32;
}

static inline u128 from_board8(uint64_t b)
{
    return (u128)bytes_to_lanes(b >> 32) << 64 | bytes_to_lanes(b);
}

/* reverse the bits of every byte (every row of an 8 x 8 board) */
static inline uint64_t mirror8(uint64_t x)
{
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    return ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
}

/* bit 8 r + c -> bit 8 c + r */
static inline uint64_t transpose8(uint64_t x)
{
    uint64_t t;
    t = 0x0F0F0F0F00000000ULL & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    t = 0x3333000033330000ULL & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    t = 0x5500550055005500ULL & (x ^ (x << 7));
    x ^= t ^ (t >> 7);
    return x;
}

/* reverse the bits of every 16-bit lane (every row of the frame) */
static inline uint64_t mirror16(uint64_t x)
{
    x = ((x >> 1) & 0x5555555555555555ULL) | ((x & 0x5555555555555555ULL) << 1);
    x = ((x >> 2) & 0x3333333333333333ULL) | ((x & 0x3333333333333333ULL) << 2);
    x = ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((x & 0x0F0F0F0F0F0F0F0FULL) << 4);
    return ((x >> 8) & 0x00FF00FF00FF00FFULL) | ((x & 0x00FF00FF00FF00FFULL) << 8);
}

/* reverse the order of the four 16-bit lanes */
static inline uint64_t flip16(uint64_t x)
{
    x = x >> 32 | x << 32;
    return ((x >> 16) & 0x0000FFFF0000FFFFULL) | ((x & 0x0000FFFF0000FFFFULL) << 16);
}

#define MIN(a, b) ((b) < (a) ? (b) : (a))

/* The canonical form of a normalised shape of h rows, w columns on an 8 x 8
 * board, as a board. */
static inline uint64_t canonical8(uint64_t x, int h, int w)
{
    uint64_t m = mirror8(x) >> (8 - w);
    uint64_t t = transpose8(x);
    uint64_t tm = mirror8(t) >> (8 - h);
    int down = 8 * (8 - h), across = 8 * (8 - w);
    uint64_t best = MIN(x, m);
    best = MIN(best, __builtin_bswap64(x) >> down);
    best = MIN(best, __builtin_bswap64(m) >> down);
    best = MIN(best, t);
    best = MIN(best, tm);
    best = MIN(best, __builtin_bswap64(t) >> across);
    return MIN(best, __builtin_bswap64(tm) >> across);
}

/* The table key of a normalised connected shape: its canonical form.  For
 * a shape of up to 8 columns that is the canonical 8 x 8 board in the high
 * half and 0 in the low half, which no other key has (a shape at the origin
 * has a cell in row 0, in the low half): it saves spreading the board back
 * over the 16-column frame. */
static inline u128 canonical(u128 k)
{
    int w = 32 - __builtin_clz(columns(k));
    int h = (bitlen128(k) - 1) / STRIDE + 1;
    if (w <= 8)
        return (u128)canonical8(to_board8(k), h, w) << 64;
    uint64_t lo = (uint64_t)k, hi = (uint64_t)(k >> 64);
    u128 m = ((u128)mirror16(hi) << 64 | mirror16(lo)) >> (16 - w);
    u128 f = ((u128)flip16(lo) << 64 | flip16(hi)) >> (STRIDE * (ROWS - h));
    u128 fm = ((u128)flip16((uint64_t)m) << 64 | flip16((uint64_t)(m >> 64))) >> (STRIDE * (ROWS - h));
    u128 best = MIN(k, m);
    best = MIN(best, f);
    return MIN(best, fm);
}

/* ------------------------------------------------------------------------
 * The second player's mirror strategy.  A position that is its own half turn
 * about the centre of its bounding box is worth 0 when no legal removal meets
 * its own image: the second player answers every removal with its image,
 * which is disjoint from it and so still legal, and the position stays
 * symmetric.  A removal lies in one row or column; with an even number of
 * rows and of columns no row or column is its own image, so none ever meets
 * it.  With an odd count only a removal through the central cells can (the
 * centre cell, or the two central cells of the middle row or column), and
 * only if they are all there: the check is that they are not.
 * --------------------------------------------------------------------- */

/* The columns in use on an 8 x 8 board, as an 8-bit pattern. */
static inline unsigned columns8(uint64_t x)
{
    x |= x >> 32;
    x |= x >> 16;
    x |= x >> 8;
    return (unsigned)(x & 0xFF);
}

/* The half turn of a normalised board of h rows, w columns, normalised. */
static inline uint64_t half_turn8(uint64_t x, int h, int w)
{
    return __builtin_bswap64(mirror8(x) >> (8 - w)) >> (8 * (8 - h));
}

/* Whether the second player wins the normalised board x (any position, not
 * only a connected one) by mirroring. */
static inline bool mirror_zero8(uint64_t x)
{
    int w = 32 - __builtin_clz(columns8(x));
    int h = (63 - __builtin_clzll(x)) / 8 + 1;
    if (half_turn8(x, h, w) != x)
        return false;
    if (!((h | w) & 1))
        return true;
    uint64_t centre = 1ULL << (8 * ((h - 1) / 2) + (w - 1) / 2) | 1ULL << (8 * (h / 2) + w / 2);
    return (x & centre) != centre;
}

/* The same for a normalised position of the 16-column frame. */
static inline bool mirror_zero(u128 x)
{
    int w = 32 - __builtin_clz(columns(x));
    if (w <= 8)
        return mirror_zero8(to_board8(x));
    int h = (bitlen128(x) - 1) / STRIDE + 1;
    uint64_t lo = (uint64_t)x, hi = (uint64_t)(x >> 64);
    u128 m = ((u128)mirror16(hi) << 64 | mirror16(lo)) >> (16 - w);
    u128 turned = ((u128)flip16((uint64_t)m) << 64 | flip16((uint64_t)(m >> 64))) >> (STRIDE * (ROWS - h));
    if (turned != x)
        return false;
    if (!((h | w) & 1))
        return true;
    u128 one = 1;
    u128 centre = one << (STRIDE * ((h - 1) / 2) + (w - 1) / 2) | one << (STRIDE * (h / 2) + w / 2);
    return (x & centre) != centre;
}

/* ------------------------------------------------------------------------
 * The hash tables: open addressing over buckets of one cache line (keys and
 * their values), so a probe costs one memory access.  Keys are non-zero
 * shapes; 0 marks a free place.  The general core's keys are 128-bit shapes
 * (3 to a bucket), the strip core's 64-bit ones (7 to a bucket): one
 * definition, made twice by DEFINE_HASH_TABLE.
 * --------------------------------------------------------------------- */

/* Memory for a hash table of the given size (a power of two, at least 64).
 * Its lookups land anywhere in it: in a large table most of them would miss
 * the TLB too, unless it is in huge pages (Linux: transparent huge pages,
 * asked for here; measured: 15% less time on a 2 x 19 strip). */
static void *alloc_table(size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const size_t huge = (size_t)2 << 20;
    if (bytes >= 2 * huge) {
        void *p = aligned_alloc(huge, bytes);
        if (p)
            madvise(p, bytes, MADV_HUGEPAGE);
        return p;
    }
#endif
    return aligned_alloc(64, bytes);
}

/* A table of PER keys of type KEY and values of type VAL a bucket, which
 * grows (doubles) when it is FULL_NUM / FULL_DEN full; HASH(key, mask) is a
 * bucket.  It defines the types BUCKET and TABLE and, with P the prefix:
 *
 * P_init(t, nbuckets), P_free(t);
 * P_get(t, k): the value stored for k, or -1;
 * P_put(t, k, v, limit, other): store k -> v unless k is there; -1 when out
 *   of memory, -3 when the table would have to grow past limit bytes (0: no
 *   limit) with other bytes held besides (growing holds the old table and
 *   the new one, twice its size, at once: that is what is checked);
 * P_reserve(t, n, limit, other): room for n more keys without growing on the
 *   way, failing as P_put.  Keys taken from another table in its bucket
 *   order must go into one at least as large: into a smaller one, keys of
 *   neighbouring buckets pile up in long runs and every insertion walks them
 *   (quadratic).
 * PREFETCH(t, k, HASH) starts fetching k's bucket: a macro, as GCC (-O1 and
 * -O2) deletes a call to a function that does nothing but prefetch. */
#define DEFINE_HASH_TABLE(BUCKET, TABLE, P, KEY, VAL, PER, FULL_NUM, FULL_DEN, HASH)                           \
    typedef struct {                                                                                          \
        KEY keys[PER];                                                                                        \
        VAL vals[PER];                                                                                        \
    } __attribute__((aligned(64))) BUCKET;                                                                    \
                                                                                                              \
    typedef struct {                                                                                          \
        BUCKET *buckets;                                                                                      \
        size_t mask; /* buckets - 1, a power of two */                                                        \
        size_t used;                                                                                          \
    } TABLE;                                                                                                  \
                                                                                                              \
    static int P##_init(TABLE *t, size_t nbuckets)                                                            \
    {                                                                                                         \
        t->buckets = alloc_table(nbuckets * sizeof(BUCKET));                                                  \
        if (!t->buckets)                                                                                      \
            return -1;                                                                                        \
        memset(t->buckets, 0, nbuckets * sizeof(BUCKET));                                                     \
        t->mask = nbuckets - 1;                                                                               \
        t->used = 0;                                                                                          \
        return 0;                                                                                             \
    }                                                                                                         \
                                                                                                              \
    static void P##_free(TABLE *t)                                                                            \
    {                                                                                                         \
        free(t->buckets);                                                                                     \
        t->buckets = NULL;                                                                                    \
    }                                                                                                         \
                                                                                                              \
    static inline int P##_get(const TABLE *t, KEY k)                                                          \
    {                                                                                                         \
        size_t i = HASH(k, t->mask);                                                                          \
        for (;;) {                                                                                            \
            const BUCKET *b = &t->buckets[i];                                                                 \
            for (int j = 0; j < PER; j++) {                                                                   \
                if (b->keys[j] == k)                                                                          \
                    return b->vals[j];                                                                        \
                if (!b->keys[j])                                                                              \
                    return -1;                                                                                \
            }                                                                                                 \
            i = (i + 1) & t->mask;                                                                            \
        }                                                                                                     \
    }                                                                                                         \
                                                                                                              \
    static void P##_place(TABLE *t, KEY k, int v)                                                             \
    {                                                                                                         \
        size_t i = HASH(k, t->mask);                                                                          \
        for (;;) {                                                                                            \
            BUCKET *b = &t->buckets[i];                                                                       \
            for (int j = 0; j < PER; j++) {                                                                   \
                if (b->keys[j] == k)                                                                          \
                    return;                                                                                   \
                if (!b->keys[j]) {                                                                            \
                    b->keys[j] = k;                                                                           \
                    b->vals[j] = (VAL)v;                                                                      \
                    t->used++;                                                                                \
                    return;                                                                                   \
                }                                                                                             \
            }                                                                                                 \
            i = (i + 1) & t->mask;                                                                            \
        }                                                                                                     \
    }                                                                                                         \
                                                                                                              \
    static int P##_resize(TABLE *t, size_t nbuckets)                                                          \
    {                                                                                                         \
        TABLE bigger;                                                                                         \
        if (P##_init(&bigger, nbuckets) < 0)                                                                  \
            return -1;                                                                                        \
        for (size_t i = 0; i <= t->mask; i++)                                                                 \
            for (int j = 0; j < PER; j++)                                                                     \
                if (t->buckets[i].keys[j])                                                                    \
                    P##_place(&bigger, t->buckets[i].keys[j], t->buckets[i].vals[j]);                         \
        P##_free(t);                                                                                          \
        *t = bigger;                                                                                          \
        return 0;                                                                                             \
    }                                                                                                         \
                                                                                                              \
    static int P##_put(TABLE *t, KEY k, int v, size_t limit, size_t other)                                    \
    {                                                                                                         \
        if ((t->used + 1) * FULL_DEN > (t->mask + 1) * PER * FULL_NUM) {                                      \
            if (limit && (t->mask + 1) * sizeof(BUCKET) * 3 + other > limit)                                  \
                return -3;                                                                                    \
            if (P##_resize(t, (t->mask + 1) * 2) < 0)                                                         \
                return -1;                                                                                    \
        }                                                                                                     \
        P##_place(t, k, v);                                                                                   \
        return 0;                                                                                             \
    }                                                                                                         \
                                                                                                              \
    static int P##_reserve(TABLE *t, size_t n, size_t limit, size_t other)                                    \
    {                                                                                                         \
        size_t want = t->mask + 1;                                                                            \
        while ((t->used + n) * FULL_DEN > want * PER * FULL_NUM)                                              \
            want *= 2;                                                                                        \
        if (want == t->mask + 1)                                                                              \
            return 0;                                                                                         \
        if (limit && ((t->mask + 1) + want) * sizeof(BUCKET) + other > limit)                                 \
            return -3;                                                                                        \
        return P##_resize(t, want);                                                                           \
    }

#define PREFETCH(t, k, HASH) __builtin_prefetch(&(t)->buckets[HASH((k), (t)->mask)])

static inline size_t bucket_of(u128 k, size_t mask)
{
    uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(k >> 64) * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 31;
    h *= 0xD6E8FEB86659FD93ULL;
    h ^= h >> 32;
    return (size_t)h & mask;
}

#define PER_BUCKET 3
/* the general core's: 3 keys of 128 bits and their values (up to MAX_VALUE) a bucket, grown 3/4 full */
DEFINE_HASH_TABLE(Bucket, Table, table, u128, uint16_t, PER_BUCKET, 3, 4, bucket_of)

/* ------------------------------------------------------------------------
 * The core object
 * --------------------------------------------------------------------- */

/* A child position: its first piece (at the origin and canonical) and the
 * rest, in place. */
typedef struct {
    u128 piece, key, rest;
} Child;

/* What a long solve obeys and reports, in both kinds of core. */
typedef struct {
    PyThreadState *thread; /* while solving without the GIL */
    unsigned long ticks; /* shapes solved in this call */
    unsigned long tick_every; /* shapes solved between two looks at signals and progress */
    int failed; /* 0, or -1: out of memory, -2: a Python exception is set, -3: the limit reached */
    Py_ssize_t limit; /* bytes the core may hold; 0: no limit */
    PyObject *progress; /* called (with no arguments) at every look; may raise to stop the solve */
} Watch;

#define TICKS_PER_SIGNAL_CHECK 20000

static void watch_init(Watch *w)
{
    w->tick_every = TICKS_PER_SIGNAL_CHECK;
}

/* Every tick_every ticks: take the GIL for a moment to let Ctrl-C through and
 * call the progress callable; < 0 when either raised. */
static int watch_tick(Watch *w)
{
    if (++w->ticks % w->tick_every)
        return 0;
    PyEval_RestoreThread(w->thread);
    int err = PyErr_CheckSignals();
    if (!err && w->progress && w->progress != Py_None) {
        PyObject *result = PyObject_CallNoArgs(w->progress);
        if (result)
            Py_DECREF(result);
        else
            err = -1;
    }
    w->thread = PyEval_SaveThread();
    return err;
}

/* Raise the Python exception for a failed solve (failed < 0); NULL. */
static PyObject *LimitReached;

static PyObject *watch_error(Watch *w, Py_ssize_t held)
{
    if (w->failed == -3)
        PyErr_Format(LimitReached, "the solver's tables hold %zd bytes: growing them would pass the limit of %zd",
                     held, w->limit);
    else if (w->failed == -1 || !PyErr_Occurred())
        PyErr_NoMemory();
    return NULL;
}

/* How both core objects start, so that one set of functions serves both
 * for what is there. */
#define WATCHED_HEAD                                                                                             \
    PyObject_HEAD                                                                                                \
    Watch watch;                                                                                                 \
    PyThread_type_lock lock; /* one solve at a time */                                                           \
    int symmetry;            /* answer 0 at once for a shape the second player wins by mirroring */

typedef struct {
    WATCHED_HEAD
} WatchedObject;

/* Parse the symmetry argument and, the first time, make the lock; 0 or -1. */
static int watched_init(WatchedObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"symmetry", NULL};
    int symmetry = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$p", kwlist, &symmetry))
        return -1;
    self->symmetry = symmetry;
    if (self->lock)
        return 0;
    watch_init(&self->watch);
    self->lock = PyThread_allocate_lock();
    if (!self->lock) {
        PyErr_SetString(PyExc_RuntimeError, "cannot allocate a lock");
        return -1;
    }
    return 0;
}

static void watched_clear(WatchedObject *self)
{
    Py_CLEAR(self->watch.progress);
    if (self->lock)
        PyThread_free_lock(self->lock);
    self->lock = NULL;
}

static void acquire(PyThread_type_lock lock)
{
    if (!PyThread_acquire_lock(lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
}

typedef struct {
    WATCHED_HEAD
    Table table; /* one entry per class solved or loaded: its canonical form */
    Child *stack; /* children of the shapes being solved */
    size_t stack_top, stack_cap;
} CoreObject;

/* Store the value of a connected shape with canonical form key; < 0 (the
 * code of Watch.failed) when it cannot. */
static int store_class(CoreObject *self, u128 key, int v)
{
    return table_put(&self->table, key, v, (size_t)self->watch.limit, self->stack_cap * sizeof(Child));
}

/* The shape (16-column frame) of a key: see canonical(). */
static inline u128 shape_of_key(u128 key)
{
    return (uint64_t)key ? key : from_board8((uint64_t)(key >> 64));
}

static int solve(CoreObject *self, u128 s, u128 key);

/* The value of any position x (possibly empty or disconnected), or < 0. */
static int position_value(CoreObject *self, u128 x)
{
    int total = 0;
    while (x) {
        u128 piece = flood(x & -x, x);
        x ^= piece;
        piece = normalise(piece);
        u128 key = canonical(piece);
        int v = table_get(&self->table, key);
        if (v < 0 && (v = solve(self, piece, key)) < 0)
            return v;
        total ^= v;
    }
    return total;
}

/* Room for n more children on the shared stack; its index, or -1. */
static Py_ssize_t push_children(CoreObject *self, size_t n)
{
    if (self->stack_top + n > self->stack_cap) {
        size_t cap = self->stack_cap ? self->stack_cap : 4096;
        while (cap < self->stack_top + n)
            cap *= 2;
        Child *grown = realloc(self->stack, cap * sizeof(Child));
        if (!grown)
            return -1;
        self->stack = grown;
        self->stack_cap = cap;
    }
    size_t base = self->stack_top;
    self->stack_top += n;
    return (Py_ssize_t)base;
}

static inline int popcount128(u128 x)
{
    return __builtin_popcountll((uint64_t)x) + __builtin_popcountll((uint64_t)(x >> 64));
}

/* ---- shapes that fit 8 x 8: the same on 64-bit boards, bit 8 r + c ---- */

#define COL0_8 0x0101010101010101ULL
#define COL7_8 0x8080808080808080ULL

static inline uint64_t flood8(uint64_t seed, uint64_t x)
{
    uint64_t c = seed, prev;
    do {
        prev = c;
        c |= (((c << 1) & ~COL0_8) | ((c >> 1) & ~COL7_8) | (c << 8) | (c >> 8)) & x;
    } while (c != prev);
    return c;
}


static inline uint64_t normalise8(uint64_t x)
{
    x >>= __builtin_ctzll(x) & ~7;
    return x >> __builtin_ctz(columns8(x));
}

/* The table key of a normalised connected board: see canonical(). */
static inline u128 key8(uint64_t x)
{
    int w = 32 - __builtin_clz(columns8(x));
    int h = (63 - __builtin_clzll(x)) / 8 + 1;
    return (u128)canonical8(x, h, w) << 64;
}

static int solve8(CoreObject *self, uint64_t s, u128 key);

static int position_value8(CoreObject *self, uint64_t x)
{
    int total = 0;
    while (x) {
        uint64_t piece = flood8(x & -x, x);
        x ^= piece;
        piece = normalise8(piece);
        u128 key = key8(piece);
        int v = table_get(&self->table, key);
        if (v < 0 && (v = solve8(self, piece, key)) < 0)
            return v;
        total ^= v;
    }
    return total;
}

/* Store g as the value of the class key and return it, or the failure. */
static int solved(CoreObject *self, u128 key, int g)
{
    int err = store_class(self, key, g);
    return err < 0 ? (self->watch.failed = err) : g;
}

static int solve8(CoreObject *self, uint64_t s, u128 key)
{
    uint64_t seen[(MAX_VALUE + 1) / 64];
    memset(seen, 0, sizeof seen);

    if (watch_tick(&self->watch) < 0)
        return self->watch.failed = -2;
    if (self->symmetry && mirror_zero8(s))
        return solved(self, key, 0);

    uint64_t h2 = s & (s >> 1) & ~COL7_8;
    uint64_t h3 = h2 & (h2 >> 1);
    uint64_t v2 = s & (s >> 8);
    uint64_t v3 = v2 & (v2 >> 8);
    struct {
        uint64_t starts, shape;
    } kinds[5] = {{s, 1}, {h2, 3}, {h3, 7}, {v2, 0x101}, {v3, 0x10101}};
    size_t n = 0;
    for (int k = 0; k < 5; k++)
        n += __builtin_popcountll(kinds[k].starts);
    Py_ssize_t base = push_children(self, n);
    if (base < 0)
        return self->watch.failed = -1;
    Child *child = self->stack + base;
    size_t i = 0;
    for (int k = 0; k < 5; k++) {
        for (uint64_t x = kinds[k].starts; x; x &= x - 1) {
            uint64_t c = s ^ (kinds[k].shape << __builtin_ctzll(x));
            Child *ch = &child[i++];
            if (!c) {
                ch->piece = ch->key = ch->rest = 0;
                continue;
            }
            uint64_t piece = flood8(c & -c, c);
            ch->rest = c ^ piece;
            if (ch->rest && self->symmetry && mirror_zero8(normalise8(c))) {
                ch->piece = ch->key = ch->rest = 0; /* pieces that mirror each other: 0 */
                continue;
            }
            piece = normalise8(piece);
            ch->piece = piece;
            ch->key = key8(piece);
            PREFETCH(&self->table, ch->key, bucket_of);
        }
    }
    for (i = 0; i < n; i++) {
        Child ch = self->stack[base + i];
        int v = 0;
        if (ch.key) {
            v = table_get(&self->table, ch.key);
            if (v < 0 && (v = solve8(self, (uint64_t)ch.piece, ch.key)) < 0)
                return v;
            if (ch.rest) {
                int r = position_value8(self, (uint64_t)ch.rest);
                if (r < 0)
                    return r;
                v ^= r;
            }
        }
        seen[v >> 6] |= (uint64_t)1 << (v & 63);
    }
    self->stack_top = (size_t)base;
    int g = 0;
    while (seen[g >> 6] >> (g & 63) & 1)
        g++;
    return solved(self, key, g);
}

/* ---- any shape of the frame ---- */

/* The value of a normalised connected shape s (canonical form key) that is
 * not in the table.
 *
 * First every child is split off its first piece, which is turned into its
 * canonical form and its bucket prefetched; then they are looked up, so the
 * cache misses overlap.  The children live on a stack shared by the
 * recursion (used by index: a deeper call may move it). */
static int solve(CoreObject *self, u128 s, u128 key)
{
    uint64_t seen[(MAX_VALUE + 1) / 64];
    memset(seen, 0, sizeof seen);

    if (!(s & RIGHT_HALF))
        return solve8(self, to_board8(s), key); /* 8 columns or fewer: the faster boards */

    if (watch_tick(&self->watch) < 0)
        return self->watch.failed = -2;
    if (self->symmetry && mirror_zero(s))
        return solved(self, key, 0);

    u128 h2 = s & (s >> 1) & NOT_COL15; /* left cells of horizontal pairs */
    u128 h3 = h2 & (h2 >> 1);
    u128 v2 = s & (s >> STRIDE); /* top cells of vertical pairs */
    u128 v3 = v2 & (v2 >> STRIDE);
    const u128 one = 1, pair = 3, three = 7;
    const u128 vpair = one | one << STRIDE, vthree = vpair | one << (2 * STRIDE);
    struct {
        u128 starts, shape;
    } kinds[5] = {{s, one}, {h2, pair}, {h3, three}, {v2, vpair}, {v3, vthree}};
    size_t n = 0;
    for (int k = 0; k < 5; k++)
        n += popcount128(kinds[k].starts);
    Py_ssize_t base = push_children(self, n);
    if (base < 0)
        return self->watch.failed = -1;
    Child *child = self->stack + base;
    size_t i = 0;
    for (int k = 0; k < 5; k++) {
        for (u128 x = kinds[k].starts; x; x &= x - 1) {
            u128 c = s ^ (kinds[k].shape << ctz128(x));
            Child *ch = &child[i++];
            if (!c) {
                ch->piece = ch->key = ch->rest = 0;
                continue;
            }
            u128 piece = flood(c & -c, c);
            ch->rest = c ^ piece;
            if (ch->rest && self->symmetry && mirror_zero(normalise(c))) {
                ch->piece = ch->key = ch->rest = 0; /* pieces that mirror each other: 0 */
                continue;
            }
            ch->piece = normalise(piece);
            ch->key = canonical(ch->piece);
            PREFETCH(&self->table, ch->key, bucket_of);
        }
    }
    for (i = 0; i < n; i++) {
        Child ch = self->stack[base + i];
        int v = 0;
        if (ch.key) {
            v = table_get(&self->table, ch.key);
            if (v < 0 && (v = solve(self, ch.piece, ch.key)) < 0)
                return v; /* the stack is reset by the caller */
            if (ch.rest) {
                int r = position_value(self, ch.rest);
                if (r < 0)
                    return r;
                v ^= r;
            }
        }
        seen[v >> 6] |= (uint64_t)1 << (v & 63);
    }
    self->stack_top = (size_t)base;
    int g = 0;
    while (seen[g >> 6] >> (g & 63) & 1)
        g++;
    return solved(self, key, g);
}

/* ------------------------------------------------------------------------
 * Python interface
 * --------------------------------------------------------------------- */

/* A key from Python: (lo, hi) 64-bit halves; must be a normalised shape. */
static int parse_key(PyObject *lo_obj, PyObject *hi_obj, u128 *out)
{
    unsigned long long lo = PyLong_AsUnsignedLongLong(lo_obj);
    if (lo == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    unsigned long long hi = PyLong_AsUnsignedLongLong(hi_obj);
    if (hi == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    u128 k = (u128)hi << 64 | lo;
    if (k && normalise(k) != k) {
        PyErr_SetString(PyExc_ValueError, "shape key is not at the origin of its frame");
        return -1;
    }
    *out = k;
    return 0;
}

static int core_init(CoreObject *self, PyObject *args, PyObject *kwds)
{
    if (watched_init((WatchedObject *)self, args, kwds) < 0)
        return -1;
    if (!self->table.buckets && table_init(&self->table, 1 << 12) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void core_dealloc(CoreObject *self)
{
    table_free(&self->table);
    free(self->stack);
    watched_clear((WatchedObject *)self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Bytes the core holds: its table and its stack of children. */
static Py_ssize_t core_bytes(CoreObject *self)
{
    return (Py_ssize_t)((self->table.mask + 1) * sizeof(Bucket) + self->stack_cap * sizeof(Child));
}

static PyObject *core_lookup(CoreObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    u128 k;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "lookup(lo, hi)");
        return NULL;
    }
    if (parse_key(args[0], args[1], &k) < 0)
        return NULL;
    if (!k)
        return PyLong_FromLong(0);
    acquire(self->lock);
    int v = 0;
    for (u128 x = k; x && v >= 0;) {
        u128 piece = flood(x & -x, x);
        x ^= piece;
        int p = table_get(&self->table, canonical(normalise(piece)));
        v = p < 0 ? p : v ^ p;
    }
    PyThread_release_lock(self->lock);
    if (v < 0)
        Py_RETURN_NONE;
    return PyLong_FromLong(v);
}

static PyObject *core_value(CoreObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    u128 k;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "value(lo, hi)");
        return NULL;
    }
    if (parse_key(args[0], args[1], &k) < 0)
        return NULL;
    acquire(self->lock);
    self->watch.failed = 0;
    self->watch.ticks = 0;
    self->stack_top = 0;
    self->watch.thread = PyEval_SaveThread();
    int v = position_value(self, k);
    PyEval_RestoreThread(self->watch.thread);
    self->watch.thread = NULL;
    PyThread_release_lock(self->lock);
    if (v < 0)
        return watch_error(&self->watch, core_bytes(self));
    return PyLong_FromLong(v);
}

static PyObject *core_load(CoreObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    u128 k;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "load(lo, hi, value)");
        return NULL;
    }
    if (parse_key(args[0], args[1], &k) < 0)
        return NULL;
    long v = PyLong_AsLong(args[2]);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    if (!k || v < 0 || v > MAX_VALUE) {
        PyErr_SetString(PyExc_ValueError, "load: an empty shape or a value out of range");
        return NULL;
    }
    if (flood(k & -k, k) != k) {
        PyErr_SetString(PyExc_ValueError, "load: the shape is not connected");
        return NULL;
    }
    acquire(self->lock);
    int err = 0;
    u128 key = canonical(k);
    if (table_get(&self->table, key) < 0)
        err = store_class(self, key, (int)v);
    PyThread_release_lock(self->lock);
    if (err < 0) {
        self->watch.failed = err;
        return watch_error(&self->watch, core_bytes(self));
    }
    Py_RETURN_NONE;
}

/* Of n shapes whose sizes (cells) are counted in sizes[0..max], the largest
 * limit: those of more than *size cells and *ties of exactly *size.  All of
 * them for a negative limit. */
static void largest(const size_t *sizes, int max, size_t n, Py_ssize_t limit, int *size, size_t *ties)
{
    *size = 0;
    *ties = n;
    if (limit < 0 || (size_t)limit >= n)
        return;
    size_t above = 0;
    for (int c = max; c >= 0; c--) {
        if (above + sizes[c] >= (size_t)limit) {
            *size = c;
            *ties = (size_t)limit - above;
            return;
        }
        above += sizes[c];
    }
}

/* The list of make(shape, value) for the limit largest classes in the table
 * (all for a negative limit), or NULL. */
static PyObject *table_list(CoreObject *self, PyObject *(*make)(u128 shape, int value), Py_ssize_t limit)
{
    acquire(self->lock);
    const Table *t = &self->table;
    size_t sizes[129] = {0};
    for (size_t i = 0; i <= t->mask; i++)
        for (int j = 0; j < PER_BUCKET; j++)
            if (t->buckets[i].keys[j])
                sizes[popcount128(t->buckets[i].keys[j])]++;
    int size;
    size_t ties;
    largest(sizes, 128, t->used, limit, &size, &ties);
    PyObject *out = PyList_New(0);
    for (size_t i = 0; out && i <= t->mask; i++) {
        for (int j = 0; j < PER_BUCKET; j++) {
            u128 key = t->buckets[i].keys[j];
            if (!key)
                continue;
            int cells = popcount128(key);
            if (cells < size || (cells == size && !ties))
                continue;
            if (cells == size)
                ties--;
            PyObject *item = make(shape_of_key(key), t->buckets[i].vals[j]);
            if (!item || PyList_Append(out, item) < 0) {
                Py_XDECREF(item);
                Py_CLEAR(out);
                break;
            }
            Py_DECREF(item);
        }
    }
    PyThread_release_lock(self->lock);
    return out;
}

static PyObject *solved_item(u128 shape, int value)
{
    return Py_BuildValue("(KKi)", (unsigned long long)(uint64_t)shape, (unsigned long long)(uint64_t)(shape >> 64),
                         value);
}

static PyObject *core_solved(CoreObject *self, PyObject *Py_UNUSED(ignored))
{
    return table_list(self, solved_item, -1);
}

/* A Python int from a 128-bit value. */
static PyObject *int_from_u128(u128 k)
{
    PyObject *lo = PyLong_FromUnsignedLongLong((unsigned long long)(uint64_t)k);
    if (!lo || !(k >> 64))
        return lo;
    PyObject *hi = PyLong_FromUnsignedLongLong((unsigned long long)(uint64_t)(k >> 64));
    PyObject *shift = PyLong_FromLong(64);
    PyObject *up = hi && shift ? PyNumber_Lshift(hi, shift) : NULL;
    PyObject *out = up ? PyNumber_Or(up, lo) : NULL;
    Py_XDECREF(lo);
    Py_XDECREF(hi);
    Py_XDECREF(shift);
    Py_XDECREF(up);
    return out;
}

/* export_entries() -> [[h, w, bits, value]]: every class solved or loaded,
 * with bits r * w + c (the format of Solver.export_cache). */
static PyObject *export_item(u128 shape, int value)
{
    int h = (bitlen128(shape) - 1) / STRIDE + 1;
    int w = 32 - __builtin_clz(columns(shape));
    u128 bits = 0;
    for (int r = 0; r < h; r++)
        bits |= (shape >> (r * STRIDE) & 0xFFFF) << (r * w);
    PyObject *b = int_from_u128(bits);
    return b ? Py_BuildValue("[iiNi]", h, w, b, value) : NULL;
}

static PyObject *core_export_entries(CoreObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t limit = -1;
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "export_entries(limit=-1)");
        return NULL;
    }
    if (nargs == 1 && (limit = PyLong_AsSsize_t(args[0])) == -1 && PyErr_Occurred())
        return NULL;
    return table_list(self, export_item, limit);
}

/* load_entries([[h, w, bits, value]]) -> -1, or the index of the first
 * entry that is not a connected shape filling its h x w box.  The caller has
 * checked the types and that 0 < bits < 2 ** (h * w), value < MAX_VALUE; the
 * box must fit the frame one way or the other (h <= 8 and w <= 16, or
 * turned). */
static PyObject *core_load_entries(CoreObject *self, PyObject *list)
{
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "load_entries takes a list");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(list);
    Py_ssize_t bad = -1;
    PyObject *shift = PyLong_FromLong(64);
    if (!shift)
        return NULL;
    for (Py_ssize_t i = 0; i < n && bad < 0; i++) {
        PyObject *entry = PyList_GET_ITEM(list, i);
        if (!(PyList_Check(entry) || PyTuple_Check(entry)) || PySequence_Fast_GET_SIZE(entry) != 4) {
            PyErr_SetString(PyExc_TypeError, "load_entries: each entry is [h, w, bits, value]");
            goto error;
        }
        PyObject *item[4];
        for (int j = 0; j < 4; j++)
            item[j] = PySequence_Fast_GET_ITEM(entry, j);
        long h = PyLong_AsLong(item[0]), w = PyLong_AsLong(item[1]), v = PyLong_AsLong(item[3]);
        if (PyErr_Occurred())
            goto error;
        bool turned = !(h <= ROWS && w <= STRIDE);
        if (turned ? !(w <= ROWS && h <= STRIDE) : 0) {
            PyErr_SetString(PyExc_ValueError, "load_entries: a box that does not fit the frame");
            goto error;
        }
        if (h < 1 || w < 1 || h * w > 128 || v < 0 || v > MAX_VALUE) {
            PyErr_SetString(PyExc_ValueError, "load_entries: an entry out of range");
            goto error;
        }
        unsigned long long lo = PyLong_AsUnsignedLongLongMask(item[2]), hi = 0;
        if (lo == (unsigned long long)-1 && PyErr_Occurred())
            goto error;
        if (h * w > 64) {
            PyObject *up = PyNumber_Rshift(item[2], shift);
            if (!up)
                goto error;
            hi = PyLong_AsUnsignedLongLongMask(up);
            Py_DECREF(up);
            if (hi == (unsigned long long)-1 && PyErr_Occurred())
                goto error;
        }
        u128 bits = (u128)hi << 64 | lo, s = 0;
        unsigned row_mask = (1u << w) - 1;
        for (long r = 0; r < h; r++) {
            unsigned row = (unsigned)(bits >> (r * w)) & row_mask;
            for (long c = 0; c < w; c++)
                if (row >> c & 1)
                    s |= (u128)1 << (turned ? c * STRIDE + r : r * STRIDE + c);
        }
        long fh = turned ? w : h, fw = turned ? h : w;
        if (!s || flood(s & -s, s) != s || normalise(s) != s || (bitlen128(s) - 1) / STRIDE + 1 != fh ||
            32 - __builtin_clz(columns(s)) != fw) {
            bad = i;
            break;
        }
        u128 key = canonical(s);
        acquire(self->lock);
        int err = table_get(&self->table, key) < 0 ? store_class(self, key, (int)v) : 0;
        PyThread_release_lock(self->lock);
        if (err < 0) {
            self->watch.failed = err;
            watch_error(&self->watch, core_bytes(self));
            goto error;
        }
    }
    Py_DECREF(shift);
    return PyLong_FromSsize_t(bad);
error:
    Py_DECREF(shift);
    return NULL;
}

/* ---- dumps: every class as raw bytes, for a run stopped by a budget to hand on to the next ---- */

#define CORE_DUMP_ENTRY 18 /* the key's low half, its high half (8 bytes each), the value (2), little-endian */

static void put_le(unsigned char *at, uint64_t x, int bytes)
{
    for (int i = 0; i < bytes; i++)
        at[i] = (unsigned char)(x >> (8 * i));
}

static uint64_t get_le(const unsigned char *at, int bytes)
{
    uint64_t x = 0;
    for (int i = 0; i < bytes; i++)
        x |= (uint64_t)at[i] << (8 * i);
    return x;
}

/* Parse (start, count) of dump_range; the buckets start .. start + count - 1, clamped to n. */
static int parse_range(PyObject *const *args, Py_ssize_t nargs, size_t n, size_t *start, size_t *end)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "dump_range(start, count)");
        return -1;
    }
    Py_ssize_t a = PyLong_AsSsize_t(args[0]), c = PyLong_AsSsize_t(args[1]);
    if ((a == -1 || c == -1) && PyErr_Occurred())
        return -1;
    if (a < 0 || c < 0) {
        PyErr_SetString(PyExc_ValueError, "dump_range: a negative start or count");
        return -1;
    }
    *start = (size_t)a < n ? (size_t)a : n;
    *end = (size_t)c < n - *start ? *start + (size_t)c : n;
    return 0;
}

static PyObject *core_dump_range(CoreObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    size_t start, end;
    acquire(self->lock);
    const Table *t = &self->table;
    PyObject *out = NULL;
    if (parse_range(args, nargs, t->mask + 1, &start, &end) == 0) {
        size_t n = 0;
        for (size_t i = start; i < end; i++)
            for (int j = 0; j < PER_BUCKET; j++)
                n += t->buckets[i].keys[j] != 0;
        out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * CORE_DUMP_ENTRY));
        unsigned char *at = out ? (unsigned char *)PyBytes_AS_STRING(out) : NULL;
        for (size_t i = start; at && i < end; i++)
            for (int j = 0; j < PER_BUCKET; j++) {
                u128 key = t->buckets[i].keys[j];
                if (!key)
                    continue;
                put_le(at, (uint64_t)key, 8);
                put_le(at + 8, (uint64_t)(key >> 64), 8);
                put_le(at + 16, t->buckets[i].vals[j], 2);
                at += CORE_DUMP_ENTRY;
            }
    }
    PyThread_release_lock(self->lock);
    return out;
}

/* load_dump(bytes) -> the number of classes read; ValueError naming the
 * first entry that is not the canonical form of a connected shape. */
static PyObject *core_load_dump(CoreObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Py_ssize_t n = view.len / CORE_DUMP_ENTRY, bad = -1;
    int err = 0;
    if (view.len % CORE_DUMP_ENTRY)
        bad = n;
    acquire(self->lock);
    for (Py_ssize_t i = 0; i < n && bad < 0 && !err; i++) {
        const unsigned char *at = (const unsigned char *)view.buf + i * CORE_DUMP_ENTRY;
        u128 key = (u128)get_le(at + 8, 8) << 64 | get_le(at, 8);
        int v = (int)get_le(at + 16, 2);
        u128 shape = shape_of_key(key);
        if (!key || v > MAX_VALUE || normalise(shape) != shape || flood(shape & -shape, shape) != shape ||
            canonical(shape) != key) {
            bad = i;
            break;
        }
        if (table_get(&self->table, key) < 0)
            err = store_class(self, key, v);
    }
    PyThread_release_lock(self->lock);
    PyBuffer_Release(&view);
    if (err < 0) {
        self->watch.failed = err;
        return watch_error(&self->watch, core_bytes(self));
    }
    if (bad >= 0)
        return PyErr_Format(PyExc_ValueError, "load_dump: entry %zd is not a class of shapes", bad);
    return PyLong_FromSsize_t(n);
}

/* Parse reserve()'s argument: a count of classes. */
static int parse_count(PyObject *arg, size_t *n)
{
    Py_ssize_t count = PyLong_AsSsize_t(arg);
    if (count == -1 && PyErr_Occurred())
        return -1;
    if (count < 0) {
        PyErr_SetString(PyExc_ValueError, "reserve: a negative count");
        return -1;
    }
    *n = (size_t)count;
    return 0;
}

static PyObject *core_reserve(CoreObject *self, PyObject *arg)
{
    size_t n;
    if (parse_count(arg, &n) < 0)
        return NULL;
    acquire(self->lock);
    int err = table_reserve(&self->table, n, (size_t)self->watch.limit, self->stack_cap * sizeof(Child));
    PyThread_release_lock(self->lock);
    if (err < 0) {
        self->watch.failed = err;
        return watch_error(&self->watch, core_bytes(self));
    }
    Py_RETURN_NONE;
}

static PyObject *core_buckets(CoreObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(self->table.mask + 1);
}

static PyObject *core_size(CoreObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(self->table.used);
}

static PyObject *core_memory(CoreObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSsize_t(core_bytes(self));
}

/* ---- the watch's settings, shared by both core types ---- */

static PyObject *watch_get_limit(WatchedObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSsize_t(self->watch.limit);
}

static int watch_set_limit(WatchedObject *self, PyObject *value, void *Py_UNUSED(closure))
{
    Py_ssize_t limit = value && value != Py_None ? PyLong_AsSsize_t(value) : 0;
    if (limit == -1 && PyErr_Occurred())
        return -1;
    if (limit < 0) {
        PyErr_SetString(PyExc_ValueError, "limit: a number of bytes, 0 or None for no limit");
        return -1;
    }
    self->watch.limit = limit;
    return 0;
}

static PyObject *watch_get_tick_every(WatchedObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromUnsignedLong(self->watch.tick_every);
}

static int watch_set_tick_every(WatchedObject *self, PyObject *value, void *Py_UNUSED(closure))
{
    unsigned long every = value ? PyLong_AsUnsignedLong(value) : 0;
    if (every == (unsigned long)-1 && PyErr_Occurred())
        return -1;
    if (!every) {
        PyErr_SetString(PyExc_ValueError, "tick_every: at least 1");
        return -1;
    }
    self->watch.tick_every = every;
    return 0;
}

static PyObject *watch_get_progress(WatchedObject *self, void *Py_UNUSED(closure))
{
    return Py_NewRef(self->watch.progress ? self->watch.progress : Py_None);
}

static int watch_set_progress(WatchedObject *self, PyObject *value, void *Py_UNUSED(closure))
{
    if (value && value != Py_None && !PyCallable_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "progress: a callable or None");
        return -1;
    }
    Py_XSETREF(self->watch.progress, value && value != Py_None ? Py_NewRef(value) : NULL);
    return 0;
}

#define LIMIT_DOC "Bytes the core may hold (0: no limit): a table that would grow past it raises LimitReached."
#define TICK_EVERY_DOC "Shapes solved between two looks at signals and at progress."
#define PROGRESS_DOC                                                                                             \
    "None, or a callable taking no arguments, called every tick_every shapes solved while the core's lock is "  \
    "held (it must not call the core's methods; size and memory may be read); an exception it raises ends "    \
    "the solve, every class finished before staying in the table."
#define WATCH_GETSET                                                                                             \
    {"limit", (getter)watch_get_limit, (setter)watch_set_limit, LIMIT_DOC, NULL},                               \
        {"tick_every", (getter)watch_get_tick_every, (setter)watch_set_tick_every, TICK_EVERY_DOC, NULL},       \
        {"progress", (getter)watch_get_progress, (setter)watch_set_progress, PROGRESS_DOC, NULL}

static PyMethodDef core_methods[] = {
    {"lookup", (PyCFunction)(void (*)(void))core_lookup, METH_FASTCALL,
     "lookup(lo, hi) -> the value of a normalised position if all its pieces are known, else None."},
    {"value", (PyCFunction)(void (*)(void))core_value, METH_FASTCALL,
     "value(lo, hi) -> the value of a normalised position, solving as needed."},
    {"load", (PyCFunction)(void (*)(void))core_load, METH_FASTCALL,
     "load(lo, hi, value): store the known value of a normalised connected shape."},
    {"export_entries", (PyCFunction)(void (*)(void))core_export_entries, METH_FASTCALL,
     "export_entries(limit=-1) -> [[h, w, bits, value]] for the limit largest classes (all if negative), "
     "bit r * w + c."},
    {"load_entries", (PyCFunction)core_load_entries, METH_O,
     "load_entries([[h, w, bits, value]]) -> -1 or the index of the first entry that is not a connected shape "
     "filling its box."},
    {"solved", (PyCFunction)core_solved, METH_NOARGS,
     "solved() -> [(lo, hi, value)] for every class solved or loaded, in its canonical orientation."},
    {"dump_range", (PyCFunction)(void (*)(void))core_dump_range, METH_FASTCALL,
     "dump_range(start, count) -> bytes: the classes in buckets start .. start + count - 1, 18 bytes each "
     "(the canonical key's halves and the value, little-endian)."},
    {"load_dump", (PyCFunction)core_load_dump, METH_O,
     "load_dump(bytes) -> the classes read from what dump_range gave; ValueError for a bad entry."},
    {"reserve", (PyCFunction)core_reserve, METH_O,
     "reserve(n): room for n more classes without growing the table again (before loading many)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef core_getset[] = {
    {"size", (getter)core_size, NULL, "How many classes of shapes have a value.", NULL},
    {"memory", (getter)core_memory, NULL, "Bytes held by the table and the class list.", NULL},
    {"buckets", (getter)core_buckets, NULL, "Buckets of the table (dump_range's range).", NULL},
    WATCH_GETSET,
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "termgames._unrail.Core",
    .tp_basicsize = sizeof(CoreObject),
    .tp_dealloc = (destructor)core_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Values of MonUnrail positions of up to 8 rows by 16 columns (bit r*16+c).",
    .tp_methods = core_methods,
    .tp_getset = core_getset,
    .tp_init = (initproc)core_init,
    .tp_new = PyType_GenericNew,
};


/* ========================================================================
 * Strips: positions of at most two rows and up to 32 columns
 *
 * A 2 x N strip does not fit the 8 x 16 frame above once N > 16, and its
 * classes are many (2.41 times more for every column: 56 million for 2 x 21),
 * so strips get a core of their own, smaller and faster for them.  A strip
 * shape is a 64-bit key: the top row in bits 0..31 (bit c for column c), the
 * bottom row in bits 32..63, normalised so that column 0 holds a cell.  Its
 * pieces are runs of columns in which each column shares a row with the
 * next, found with a few bit operations instead of a flood fill.  The table
 * keeps 7 keys and their values (bytes: a strip has at most 218 moves, so
 * values and their xors are below 256) in a cache line: 9 bytes a class
 * instead of 21.
 * ===================================================================== */

#define SPER 7
#define STRIP_COLUMNS 32
#define SMALL 8

/* The values of rows of n tiles (octal game 0.777), n <= STRIP_COLUMNS. */
static uint8_t line_values[STRIP_COLUMNS + 1];

static void compute_line_values(void)
{
    for (int n = 1; n <= STRIP_COLUMNS; n++) {
        uint64_t seen[4] = {0, 0, 0, 0};
        for (int t = 1; t <= 3 && t <= n; t++)
            for (int a = 0; a <= n - t; a++) {
                int v = line_values[a] ^ line_values[n - t - a];
                seen[v >> 6] |= (uint64_t)1 << (v & 63);
            }
        int g = 0;
        while (seen[g >> 6] >> (g & 63) & 1)
            g++;
        line_values[n] = (uint8_t)g;
    }
}

static inline size_t sbucket_of(uint64_t k, size_t mask)
{
    uint64_t h = k * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ULL;
    h ^= h >> 29;
    return (size_t)h & mask;
}

/* the strip core's: 7 keys of 64 bits and their byte values a bucket, grown 7/8 full */
DEFINE_HASH_TABLE(SBucket, STable, stable, uint64_t, uint8_t, SPER, 7, 8, sbucket_of)

static inline uint32_t rev32(uint32_t x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    return __builtin_bswap32(x);
}

/* The key of a normalised strip shape of w columns: the least of its four
 * images (rows swapped, columns reversed, both). */
static inline uint64_t strip_key(uint32_t top, uint32_t bottom, int w)
{
    uint32_t rt = rev32(top) >> (32 - w), rb = rev32(bottom) >> (32 - w);
    uint64_t best = top | (uint64_t)bottom << 32, k = bottom | (uint64_t)top << 32;
    best = MIN(best, k);
    k = rt | (uint64_t)rb << 32;
    best = MIN(best, k);
    k = rb | (uint64_t)rt << 32;
    return MIN(best, k);
}

/* Whether the second player wins the strip position (top, bottom), column 0
 * in use, by mirroring (see mirror_zero8). */
static inline bool strip_mirror_zero(uint32_t top, uint32_t bottom)
{
    int w = 32 - __builtin_clz(top | bottom);
    if (!top || !bottom) { /* one row: its box has one row */
        uint32_t row = top | bottom;
        if (rev32(row) >> (32 - w) != row)
            return false;
        uint32_t centre = 1u << ((w - 1) / 2) | 1u << (w / 2);
        return (row & centre) != centre;
    }
    if (rev32(bottom) >> (32 - w) != top)
        return false;
    return !(w & 1) || !(top >> (w / 2) & bottom >> (w / 2) & 1);
}

typedef struct {
    WATCHED_HEAD
    STable table; /* one entry per class solved or loaded: its key */
    /* Children of the shapes being solved: for each, a word with the number
     * of pieces to look up (low byte) and the xor of the values of the
     * others, then the keys of those to look up.  Used by index: a deeper
     * call may move it. */
    uint64_t *stack;
    size_t stack_top, stack_cap;
    /* value + 1 (0: not known yet) of each connected shape of up to SMALL
     * columns in every orientation, bit c the top row, SMALL + c the bottom:
     * they are many of the pieces, looked up without leaving the cache */
    uint8_t small[1 << (2 * SMALL)];
} StripObject;

static Py_ssize_t strip_bytes(StripObject *self)
{
    return (Py_ssize_t)((self->table.mask + 1) * sizeof(SBucket) + self->stack_cap * sizeof(uint64_t));
}

static int strip_store(StripObject *self, uint64_t key, int g)
{
    uint32_t top = (uint32_t)key, bottom = (uint32_t)(key >> 32);
    int w = 32 - __builtin_clz(top | bottom);
    if (w <= SMALL) {
        uint32_t rt = rev32(top) >> (32 - w), rb = rev32(bottom) >> (32 - w);
        self->small[top | bottom << SMALL] = self->small[bottom | top << SMALL] = (uint8_t)(g + 1);
        self->small[rt | rb << SMALL] = self->small[rb | rt << SMALL] = (uint8_t)(g + 1);
    }
    int err = stable_put(&self->table, key, g, (size_t)self->watch.limit, self->stack_cap * sizeof(uint64_t));
    return err < 0 ? (self->watch.failed = err) : g;
}

/* Room for n more words on the stack; 0, or -1. */
static int strip_room(StripObject *self, size_t n)
{
    if (self->stack_top + n <= self->stack_cap)
        return 0;
    size_t cap = self->stack_cap ? self->stack_cap : 4096;
    while (cap < self->stack_top + n)
        cap *= 2;
    uint64_t *grown = realloc(self->stack, cap * sizeof(uint64_t));
    if (!grown)
        return -1;
    self->stack = grown;
    self->stack_cap = cap;
    return 0;
}

/* Push the keys of the pieces of the position (top, bottom) after its count;
 * the count is 0 for an empty position or one the second player wins by
 * mirroring.  Room for STRIP_COLUMNS + 1 words must be there. */
static void strip_push_pieces(StripObject *self, uint32_t top, uint32_t bottom)
{
    size_t at = self->stack_top++;
    uint64_t count = 0, known = 0;
    uint32_t used = top | bottom;
    uint32_t linked = (top & top >> 1) | (bottom & bottom >> 1); /* bit c: column c shares a row with c + 1 */
    if (used) {
        /* a position of several pieces may mirror itself as a whole (one
         * piece is looked up or solved, which checks it) */
        int first = __builtin_ctz(used);
        int last = first + __builtin_ctz(~(linked >> first)); /* the first piece's last column */
        if (self->symmetry && used >> last >> 1 && strip_mirror_zero(top >> first, bottom >> first)) {
            self->stack[at] = 0;
            return;
        }
        while (used) {
            int a = __builtin_ctz(used);
            int b = a + __builtin_ctz(~(linked >> a)); /* linked has no bit 31: b <= 31 */
            int w = b - a + 1;
            used &= ~((2u << b) - 1); /* 2u << 31 is 0: all of them */
            uint32_t mask = w == 32 ? ~0u : (1u << w) - 1;
            uint32_t t = top >> a & mask, u = bottom >> a & mask;
            if (!t || !u) {
                known ^= line_values[w];
                continue;
            }
            if (w <= SMALL && self->small[t | u << SMALL]) {
                known ^= self->small[t | u << SMALL] - 1;
                continue;
            }
            uint64_t key = strip_key(t, u, w);
            PREFETCH(&self->table, key, sbucket_of);
            self->stack[self->stack_top++] = key;
            count++;
        }
    }
    self->stack[at] = count | known << 8;
}

static int strip_solve(StripObject *self, uint64_t key);

/* The value of the pieces pushed at index i (moved past them), or < 0. */
static int strip_pieces_value(StripObject *self, size_t *i)
{
    uint64_t head = self->stack[(*i)++];
    int n = (int)(head & 0xFF), total = (int)(head >> 8);
    for (int j = 0; j < n; j++) {
        uint64_t key = self->stack[(*i)++];
        int v = stable_get(&self->table, key);
        if (v < 0 && (v = strip_solve(self, key)) < 0)
            return v;
        total ^= v;
    }
    return total;
}

/* The value of a strip shape (any orientation; key its canonical key) that
 * is not in the table. */
static int strip_solve(StripObject *self, uint64_t key)
{
    if (watch_tick(&self->watch) < 0)
        return self->watch.failed = -2;
    uint32_t top = (uint32_t)key, bottom = (uint32_t)(key >> 32);
    if (self->symmetry && strip_mirror_zero(top, bottom))
        return strip_store(self, key, 0);
    uint32_t th2 = top & top >> 1, bh2 = bottom & bottom >> 1;
    struct {
        uint32_t starts, shape;
        int rows; /* 1 top, 2 bottom, 3 both */
    } kinds[7] = {{top, 1, 1},          {th2, 3, 1}, {th2 & th2 >> 1, 7, 1}, {bottom, 1, 2},
                  {bh2, 3, 2},          {bh2 & bh2 >> 1, 7, 2}, {top & bottom, 1, 3}};
    size_t base = self->stack_top;
    for (int k = 0; k < 7; k++) {
        for (uint32_t x = kinds[k].starts; x; x &= x - 1) {
            uint32_t removed = kinds[k].shape << __builtin_ctz(x);
            if (strip_room(self, STRIP_COLUMNS + 1) < 0)
                return self->watch.failed = -1;
            strip_push_pieces(self, kinds[k].rows & 1 ? top ^ removed : top,
                              kinds[k].rows & 2 ? bottom ^ removed : bottom);
        }
    }
    size_t end = self->stack_top;
    uint64_t seen[4] = {0, 0, 0, 0};
    for (size_t i = base; i < end;) {
        int v = strip_pieces_value(self, &i);
        if (v < 0)
            return v; /* the stack is reset by the caller */
        seen[v >> 6] |= (uint64_t)1 << (v & 63);
    }
    self->stack_top = base;
    int g = 0;
    while (seen[g >> 6] >> (g & 63) & 1)
        g++;
    return strip_store(self, key, g);
}

/* ---- Python interface of strips ---- */

/* A strip position from Python: bits 0..31 the top row, 32..63 the bottom. */
static int parse_strip(PyObject *obj, uint32_t *top, uint32_t *bottom)
{
    unsigned long long k = PyLong_AsUnsignedLongLong(obj);
    if (k == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    *top = (uint32_t)k;
    *bottom = (uint32_t)(k >> 32);
    return 0;
}

static int strip_init(StripObject *self, PyObject *args, PyObject *kwds)
{
    if (watched_init((WatchedObject *)self, args, kwds) < 0)
        return -1;
    if (!self->table.buckets && stable_init(&self->table, 1 << 10) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void strip_dealloc(StripObject *self)
{
    stable_free(&self->table);
    free(self->stack);
    watched_clear((WatchedObject *)self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *strip_lookup(StripObject *self, PyObject *arg)
{
    uint32_t top, bottom;
    if (parse_strip(arg, &top, &bottom) < 0)
        return NULL;
    acquire(self->lock);
    self->stack_top = 0;
    int v = 0;
    if (strip_room(self, STRIP_COLUMNS + 1) < 0)
        v = -2;
    else {
        strip_push_pieces(self, top, bottom);
        v = (int)(self->stack[0] >> 8);
        for (size_t i = 1; i < self->stack_top && v >= 0; i++) {
            int p = stable_get(&self->table, self->stack[i]);
            v = p < 0 ? -1 : v ^ p;
        }
        self->stack_top = 0;
    }
    PyThread_release_lock(self->lock);
    if (v == -2)
        return PyErr_NoMemory();
    if (v < 0)
        Py_RETURN_NONE;
    return PyLong_FromLong(v);
}

static PyObject *strip_value(StripObject *self, PyObject *arg)
{
    uint32_t top, bottom;
    if (parse_strip(arg, &top, &bottom) < 0)
        return NULL;
    acquire(self->lock);
    self->watch.failed = 0;
    self->watch.ticks = 0;
    self->stack_top = 0;
    self->watch.thread = PyEval_SaveThread();
    int v;
    if (strip_room(self, STRIP_COLUMNS + 1) < 0)
        v = self->watch.failed = -1;
    else {
        strip_push_pieces(self, top, bottom);
        size_t i = 0;
        v = strip_pieces_value(self, &i);
    }
    self->stack_top = 0;
    PyEval_RestoreThread(self->watch.thread);
    self->watch.thread = NULL;
    PyThread_release_lock(self->lock);
    if (v < 0)
        return watch_error(&self->watch, strip_bytes(self));
    return PyLong_FromLong(v);
}

/* The key of a connected strip shape, normalised; 0 if it is not one. */
static uint64_t strip_connected_key(uint32_t top, uint32_t bottom)
{
    uint32_t used = top | bottom;
    if (!used)
        return 0;
    int first = __builtin_ctz(used);
    top >>= first;
    bottom >>= first;
    used >>= first;
    int w = 32 - __builtin_clz(used);
    uint32_t all = w == 32 ? ~0u : (1u << w) - 1;
    uint32_t linked = (top & top >> 1) | (bottom & bottom >> 1);
    if (used != all || (linked | ~(all >> 1)) != ~0u)
        return 0;
    return strip_key(top, bottom, w);
}

static int strip_load_one(StripObject *self, uint64_t key, long v)
{
    acquire(self->lock);
    int err = stable_get(&self->table, key) < 0 ? strip_store(self, key, (int)v) : 0;
    PyThread_release_lock(self->lock);
    return err < 0 ? err : 0;
}

static PyObject *strip_load(StripObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    uint32_t top, bottom;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "load(key, value)");
        return NULL;
    }
    if (parse_strip(args[0], &top, &bottom) < 0)
        return NULL;
    long v = PyLong_AsLong(args[1]);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    uint64_t key = strip_connected_key(top, bottom);
    if (!key || v < 0 || v > 255) {
        PyErr_SetString(PyExc_ValueError, "load: not a connected shape, or a value out of range");
        return NULL;
    }
    if (strip_load_one(self, key, v) < 0)
        return watch_error(&self->watch, strip_bytes(self));
    Py_RETURN_NONE;
}

/* load_entries([[h, w, bits, value]]) -> -1, or the index of the first entry
 * that is not a connected shape filling its box, which must be 2 x w or
 * h x 2 (turned) with at most 32 columns.  The caller has checked the types
 * and ranges. */
static PyObject *strip_load_entries(StripObject *self, PyObject *list)
{
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "load_entries takes a list");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *entry = PyList_GET_ITEM(list, i);
        if (!(PyList_Check(entry) || PyTuple_Check(entry)) || PySequence_Fast_GET_SIZE(entry) != 4) {
            PyErr_SetString(PyExc_TypeError, "load_entries: each entry is [h, w, bits, value]");
            return NULL;
        }
        PyObject *item[4];
        for (int j = 0; j < 4; j++)
            item[j] = PySequence_Fast_GET_ITEM(entry, j);
        long h = PyLong_AsLong(item[0]), w = PyLong_AsLong(item[1]), v = PyLong_AsLong(item[3]);
        unsigned long long bits = PyLong_AsUnsignedLongLong(item[2]);
        if (PyErr_Occurred())
            return NULL;
        bool turned = h != 2;
        long len = turned ? h : w;
        if ((turned && w != 2) || len < 1 || len > STRIP_COLUMNS || v < 0 || v > 255) {
            PyErr_SetString(PyExc_ValueError, "load_entries: a box that is not a strip, or a value out of range");
            return NULL;
        }
        uint32_t top = 0, bottom = 0;
        for (long c = 0; c < len; c++) {
            top |= (uint32_t)(bits >> (turned ? 2 * c : c) & 1) << c;
            bottom |= (uint32_t)(bits >> (turned ? 2 * c + 1 : len + c) & 1) << c;
        }
        uint64_t key = top && bottom ? strip_connected_key(top, bottom) : 0;
        if (!key || 32 - __builtin_clz(top | bottom) != len || !(((top | bottom) & 1)))
            return PyLong_FromSsize_t(i);
        if (strip_load_one(self, key, v) < 0)
            return watch_error(&self->watch, strip_bytes(self));
    }
    return PyLong_FromSsize_t(-1);
}

/* export_entries(limit=-1) -> [[2, w, bits, value]] for the limit largest
 * classes of two rows (one-row lines are left out: the line table has them),
 * bit r * w + c. */
static PyObject *strip_export_entries(StripObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t limit = -1;
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "export_entries(limit=-1)");
        return NULL;
    }
    if (nargs == 1 && (limit = PyLong_AsSsize_t(args[0])) == -1 && PyErr_Occurred())
        return NULL;
    acquire(self->lock);
    const STable *t = &self->table;
    size_t sizes[65] = {0}, n = 0;
    for (size_t i = 0; i <= t->mask; i++)
        for (int j = 0; j < SPER; j++) {
            uint64_t k = t->buckets[i].keys[j];
            if (k && (uint32_t)k && k >> 32) {
                sizes[__builtin_popcountll(k)]++;
                n++;
            }
        }
    int size;
    size_t ties;
    largest(sizes, 64, n, limit, &size, &ties);
    PyObject *out = PyList_New(0);
    for (size_t i = 0; out && i <= t->mask; i++) {
        for (int j = 0; j < SPER; j++) {
            uint64_t k = t->buckets[i].keys[j];
            if (!(k && (uint32_t)k && k >> 32))
                continue;
            int cells = __builtin_popcountll(k);
            if (cells < size || (cells == size && !ties))
                continue;
            if (cells == size)
                ties--;
            uint32_t top = (uint32_t)k, bottom = (uint32_t)(k >> 32);
            int w = 32 - __builtin_clz(top | bottom);
            PyObject *item = Py_BuildValue("[iiKi]", 2, w, (unsigned long long)top | (unsigned long long)bottom << w,
                                           (int)t->buckets[i].vals[j]);
            if (!item || PyList_Append(out, item) < 0) {
                Py_XDECREF(item);
                Py_CLEAR(out);
                break;
            }
            Py_DECREF(item);
        }
    }
    PyThread_release_lock(self->lock);
    return out;
}

#define STRIP_DUMP_ENTRY 9 /* the key (8 bytes) and the value (1), little-endian */

static PyObject *strip_dump_range(StripObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    size_t start, end;
    acquire(self->lock);
    const STable *t = &self->table;
    PyObject *out = NULL;
    if (parse_range(args, nargs, t->mask + 1, &start, &end) == 0) {
        size_t n = 0;
        for (size_t i = start; i < end; i++)
            for (int j = 0; j < SPER; j++)
                n += t->buckets[i].keys[j] != 0;
        out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * STRIP_DUMP_ENTRY));
        unsigned char *at = out ? (unsigned char *)PyBytes_AS_STRING(out) : NULL;
        for (size_t i = start; at && i < end; i++)
            for (int j = 0; j < SPER; j++) {
                if (!t->buckets[i].keys[j])
                    continue;
                put_le(at, t->buckets[i].keys[j], 8);
                at[8] = t->buckets[i].vals[j];
                at += STRIP_DUMP_ENTRY;
            }
    }
    PyThread_release_lock(self->lock);
    return out;
}

static PyObject *strip_load_dump(StripObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Py_ssize_t n = view.len / STRIP_DUMP_ENTRY, bad = -1;
    int err = 0;
    if (view.len % STRIP_DUMP_ENTRY)
        bad = n;
    for (Py_ssize_t i = 0; i < n && bad < 0 && !err; i++) {
        const unsigned char *at = (const unsigned char *)view.buf + i * STRIP_DUMP_ENTRY;
        uint64_t key = get_le(at, 8);
        if (!key || strip_connected_key((uint32_t)key, (uint32_t)(key >> 32)) != key) {
            bad = i;
            break;
        }
        err = strip_load_one(self, key, at[8]);
    }
    PyBuffer_Release(&view);
    if (err < 0)
        return watch_error(&self->watch, strip_bytes(self));
    if (bad >= 0)
        return PyErr_Format(PyExc_ValueError, "load_dump: entry %zd is not a class of shapes", bad);
    return PyLong_FromSsize_t(n);
}

static PyObject *strip_reserve(StripObject *self, PyObject *arg)
{
    size_t n;
    if (parse_count(arg, &n) < 0)
        return NULL;
    acquire(self->lock);
    int err = stable_reserve(&self->table, n, (size_t)self->watch.limit, self->stack_cap * sizeof(uint64_t));
    PyThread_release_lock(self->lock);
    if (err < 0) {
        self->watch.failed = err;
        return watch_error(&self->watch, strip_bytes(self));
    }
    Py_RETURN_NONE;
}

static PyObject *strip_buckets(StripObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(self->table.mask + 1);
}

static PyObject *strip_size(StripObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(self->table.used);
}

static PyObject *strip_memory(StripObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSsize_t(strip_bytes(self));
}

static PyMethodDef strip_methods[] = {
    {"lookup", (PyCFunction)strip_lookup, METH_O,
     "lookup(key) -> the value of a strip position if all its pieces are known, else None."},
    {"value", (PyCFunction)strip_value, METH_O, "value(key) -> the value of a strip position, solving as needed."},
    {"load", (PyCFunction)(void (*)(void))strip_load, METH_FASTCALL,
     "load(key, value): store the known value of a connected strip shape."},
    {"export_entries", (PyCFunction)(void (*)(void))strip_export_entries, METH_FASTCALL,
     "export_entries(limit=-1) -> [[2, w, bits, value]] for the limit largest two-row classes, bit r * w + c."},
    {"load_entries", (PyCFunction)strip_load_entries, METH_O,
     "load_entries([[h, w, bits, value]]) -> -1 or the index of the first entry that is not a connected shape "
     "filling its 2 x w (or h x 2) box."},
    {"dump_range", (PyCFunction)(void (*)(void))strip_dump_range, METH_FASTCALL,
     "dump_range(start, count) -> bytes: the classes in buckets start .. start + count - 1, 9 bytes each "
     "(the key and the value, little-endian)."},
    {"load_dump", (PyCFunction)strip_load_dump, METH_O,
     "load_dump(bytes) -> the classes read from what dump_range gave; ValueError for a bad entry."},
    {"reserve", (PyCFunction)strip_reserve, METH_O,
     "reserve(n): room for n more classes without growing the table again (before loading many)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef strip_getset[] = {
    {"size", (getter)strip_size, NULL, "How many classes of shapes have a value.", NULL},
    {"memory", (getter)strip_memory, NULL, "Bytes held by the table and the stack.", NULL},
    {"buckets", (getter)strip_buckets, NULL, "Buckets of the table (dump_range's range).", NULL},
    WATCH_GETSET,
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject StripType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "termgames._unrail.Strip",
    .tp_basicsize = sizeof(StripObject),
    .tp_dealloc = (destructor)strip_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Values of MonUnrail positions of up to 2 rows by 32 columns (bit 32*r+c).",
    .tp_methods = strip_methods,
    .tp_getset = strip_getset,
    .tp_init = (initproc)strip_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef unrail_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "termgames._unrail",
    .m_doc = "Compiled core of the MonUnrail unrailing solver (see termgames.rules.monunrail.solver).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__unrail(void)
{
    if (PyType_Ready(&CoreType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&unrail_module);
    if (!m)
        return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    compute_line_values();
    if (PyType_Ready(&StripType) < 0 || PyModule_AddObjectRef(m, "Strip", (PyObject *)&StripType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    LimitReached = PyErr_NewExceptionWithDoc("termgames._unrail.LimitReached",
                                             "A core's table would have grown past its limit (bytes).",
                                             PyExc_MemoryError, NULL);
    if (!LimitReached || PyModule_AddObjectRef(m, "LimitReached", LimitReached) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "STRIDE", STRIDE) < 0 || PyModule_AddIntConstant(m, "ROWS", ROWS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_VALUE", MAX_VALUE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
