/* termgames._unrail: the compiled core of the MonUnrail unrailing solver.
 *
 * The same game as termgames/rules/monunrail_solver.py (which documents it and
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
 * a moment to let Ctrl-C through.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "pythread.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
 * The hash table: open addressing over buckets of one cache line (three
 * keys and their values), so a probe costs one memory access.  Keys are
 * non-zero shapes; 0 marks a free place.
 * --------------------------------------------------------------------- */

#define PER_BUCKET 3

typedef struct {
    u128 keys[PER_BUCKET];
    uint16_t vals[PER_BUCKET];
} __attribute__((aligned(64))) Bucket;

typedef struct {
    Bucket *buckets;
    size_t mask; /* buckets - 1, a power of two */
    size_t used;
} Table;

static inline size_t bucket_of(u128 k, size_t mask)
{
    uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(k >> 64) * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 31;
    h *= 0xD6E8FEB86659FD93ULL;
    h ^= h >> 32;
    return (size_t)h & mask;
}

static int table_init(Table *t, size_t nbuckets)
{
    t->buckets = aligned_alloc(64, nbuckets * sizeof(Bucket));
    if (!t->buckets)
        return -1;
    memset(t->buckets, 0, nbuckets * sizeof(Bucket));
    t->mask = nbuckets - 1;
    t->used = 0;
    return 0;
}

static void table_free(Table *t)
{
    free(t->buckets);
    t->buckets = NULL;
}

/* The value stored for k, or -1. */
static inline int table_get(const Table *t, u128 k)
{
    size_t i = bucket_of(k, t->mask);
    for (;;) {
        const Bucket *b = &t->buckets[i];
        for (int j = 0; j < PER_BUCKET; j++) {
            if (b->keys[j] == k)
                return b->vals[j];
            if (!b->keys[j])
                return -1;
        }
        i = (i + 1) & t->mask;
    }
}

static void table_place(Table *t, u128 k, int v)
{
    size_t i = bucket_of(k, t->mask);
    for (;;) {
        Bucket *b = &t->buckets[i];
        for (int j = 0; j < PER_BUCKET; j++) {
            if (b->keys[j] == k)
                return;
            if (!b->keys[j]) {
                b->keys[j] = k;
                b->vals[j] = (uint16_t)v;
                t->used++;
                return;
            }
        }
        i = (i + 1) & t->mask;
    }
}

static int table_grow(Table *t)
{
    Table bigger;
    if (table_init(&bigger, (t->mask + 1) * 2) < 0)
        return -1;
    for (size_t i = 0; i <= t->mask; i++)
        for (int j = 0; j < PER_BUCKET; j++)
            if (t->buckets[i].keys[j])
                table_place(&bigger, t->buckets[i].keys[j], t->buckets[i].vals[j]);
    table_free(t);
    *t = bigger;
    return 0;
}

/* Store k -> v unless k is there already; -1 when out of memory. */
static int table_put(Table *t, u128 k, int v)
{
    if ((t->used + 1) * 4 > (t->mask + 1) * PER_BUCKET * 3 && table_grow(t) < 0)
        return -1;
    table_place(t, k, v);
    return 0;
}

static inline void prefetch_key(const Table *t, u128 k)
{
    __builtin_prefetch(&t->buckets[bucket_of(k, t->mask)]);
}

/* ------------------------------------------------------------------------
 * The core object
 * --------------------------------------------------------------------- */

/* A child position: its first piece (at the origin and canonical) and the
 * rest, in place. */
typedef struct {
    u128 piece, key, rest;
} Child;

typedef struct {
    PyObject_HEAD
    Table table; /* one entry per class solved or loaded: its canonical form */
    PyThread_type_lock lock;
    /* while solving */
    PyThreadState *thread;
    unsigned long ticks;
    int failed; /* 0, or -1: out of memory, -2: a Python exception is set */
    Child *stack; /* children of the shapes being solved */
    size_t stack_top, stack_cap;
} CoreObject;

#define TICKS_PER_SIGNAL_CHECK 20000

/* Store the value of a connected shape with canonical form key. */
static int store_class(CoreObject *self, u128 key, int v)
{
    return table_put(&self->table, key, v);
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

static int check_signals(CoreObject *self)
{
    PyEval_RestoreThread(self->thread);
    int err = PyErr_CheckSignals();
    self->thread = PyEval_SaveThread();
    return err;
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

static inline unsigned columns8(uint64_t x)
{
    x |= x >> 32;
    x |= x >> 16;
    x |= x >> 8;
    return (unsigned)(x & 0xFF);
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

static int solve8(CoreObject *self, uint64_t s, u128 key)
{
    uint64_t seen[(MAX_VALUE + 1) / 64];
    memset(seen, 0, sizeof seen);

    if (++self->ticks % TICKS_PER_SIGNAL_CHECK == 0 && check_signals(self) < 0)
        return self->failed = -2;

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
        return self->failed = -1;
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
            piece = normalise8(piece);
            ch->piece = piece;
            ch->key = key8(piece);
            prefetch_key(&self->table, ch->key);
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
    if (store_class(self, key, g) < 0)
        return self->failed = -1;
    return g;
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

    if (++self->ticks % TICKS_PER_SIGNAL_CHECK == 0 && check_signals(self) < 0)
        return self->failed = -2;

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
        return self->failed = -1;
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
            ch->piece = normalise(piece);
            ch->key = canonical(ch->piece);
            prefetch_key(&self->table, ch->key);
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
    if (store_class(self, key, g) < 0)
        return self->failed = -1;
    return g;
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
    static char *kwlist[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "", kwlist))
        return -1;
    if (self->table.buckets)
        return 0;
    if (table_init(&self->table, 1 << 12) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    self->lock = PyThread_allocate_lock();
    if (!self->lock) {
        PyErr_SetString(PyExc_RuntimeError, "cannot allocate a lock");
        return -1;
    }
    return 0;
}

static void core_dealloc(CoreObject *self)
{
    table_free(&self->table);
    free(self->stack);
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static void acquire(CoreObject *self)
{
    if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(self->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
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
    acquire(self);
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
    acquire(self);
    self->failed = 0;
    self->ticks = 0;
    self->stack_top = 0;
    self->thread = PyEval_SaveThread();
    int v = position_value(self, k);
    PyEval_RestoreThread(self->thread);
    self->thread = NULL;
    PyThread_release_lock(self->lock);
    if (v < 0) {
        if (self->failed == -1 || !PyErr_Occurred())
            return PyErr_NoMemory();
        return NULL;
    }
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
    acquire(self);
    int err = 0;
    u128 key = canonical(k);
    if (table_get(&self->table, key) < 0)
        err = store_class(self, key, (int)v);
    PyThread_release_lock(self->lock);
    if (err < 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* The list of make(shape, value) for every class in the table, or NULL. */
static PyObject *table_list(CoreObject *self, PyObject *(*make)(u128 shape, int value))
{
    acquire(self);
    const Table *t = &self->table;
    PyObject *out = PyList_New((Py_ssize_t)t->used);
    Py_ssize_t n = 0;
    for (size_t i = 0; out && i <= t->mask; i++) {
        for (int j = 0; j < PER_BUCKET; j++) {
            if (!t->buckets[i].keys[j])
                continue;
            PyObject *item = make(shape_of_key(t->buckets[i].keys[j]), t->buckets[i].vals[j]);
            if (!item) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(out, n++, item);
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
    return table_list(self, solved_item);
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

static PyObject *core_export_entries(CoreObject *self, PyObject *Py_UNUSED(ignored))
{
    return table_list(self, export_item);
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
        acquire(self);
        int err = table_get(&self->table, key) < 0 ? store_class(self, key, (int)v) : 0;
        PyThread_release_lock(self->lock);
        if (err < 0) {
            PyErr_NoMemory();
            goto error;
        }
    }
    Py_DECREF(shift);
    return PyLong_FromSsize_t(bad);
error:
    Py_DECREF(shift);
    return NULL;
}

static PyObject *core_size(CoreObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t(self->table.used);
}

static PyObject *core_memory(CoreObject *self, void *Py_UNUSED(closure))
{
    return PyLong_FromSize_t((self->table.mask + 1) * sizeof(Bucket) + self->stack_cap * sizeof(Child));
}

static PyMethodDef core_methods[] = {
    {"lookup", (PyCFunction)(void (*)(void))core_lookup, METH_FASTCALL,
     "lookup(lo, hi) -> the value of a normalised position if all its pieces are known, else None."},
    {"value", (PyCFunction)(void (*)(void))core_value, METH_FASTCALL,
     "value(lo, hi) -> the value of a normalised position, solving as needed."},
    {"load", (PyCFunction)(void (*)(void))core_load, METH_FASTCALL,
     "load(lo, hi, value): store the known value of a normalised connected shape."},
    {"export_entries", (PyCFunction)core_export_entries, METH_NOARGS,
     "export_entries() -> [[h, w, bits, value]] for every class, bit r * w + c."},
    {"load_entries", (PyCFunction)core_load_entries, METH_O,
     "load_entries([[h, w, bits, value]]) -> -1 or the index of the first entry that is not a connected shape "
     "filling its box."},
    {"solved", (PyCFunction)core_solved, METH_NOARGS,
     "solved() -> [(lo, hi, value)] for every class solved or loaded, in its canonical orientation."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef core_getset[] = {
    {"size", (getter)core_size, NULL, "How many classes of shapes have a value.", NULL},
    {"memory", (getter)core_memory, NULL, "Bytes held by the table and the class list.", NULL},
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


static struct PyModuleDef unrail_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "termgames._unrail",
    .m_doc = "Compiled core of the MonUnrail unrailing solver (see termgames.rules.monunrail_solver).",
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
    if (PyModule_AddIntConstant(m, "STRIDE", STRIDE) < 0 || PyModule_AddIntConstant(m, "ROWS", ROWS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_VALUE", MAX_VALUE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
