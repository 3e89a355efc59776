/*
 * SimProf's instruction counter for QEMU user-mode emulation (ours;
 * docs/simprof.md, "Counter modes": emulated).
 *
 * Counts every guest thread's retired instructions and, with cache=1, runs
 * each thread's loads and stores through a private two-level cache model
 * (set-associative, LRU, write-allocate; sizes from the arguments) and its
 * instruction fetches through a private L1 instruction cache backed by the
 * same L2 (each executed block fetches the lines its bytes span), and
 * each thread's conditional branches through a private gshare predictor
 * (McFarling 1993: 2^bp_bits two-bit counters indexed by the branch's
 * address xor the thread's last bp_bits outcomes).  Every `window`
 * instructions of a thread, and when the thread or the process ends, it
 * appends one record to `out`:
 *
 *     time_ns os_tid instructions mem_accesses l1_misses l2_misses l1i_misses l2i_misses branches mispredicts
 *
 * (l1_misses, l2_misses: of loads and stores; l1i_misses, l2i_misses: of
 * instruction fetches)
 *
 * time_ns is CLOCK_REALTIME (the clock of JFR's event times), os_tid the
 * thread's Linux id (QEMU runs each guest thread on a host thread of the
 * same id), the counts are the thread's totals so far.
 *
 * Arguments (-plugin ./simprof_counter.so,out=PATH,window=N,cache=0|1,
 * line=B,l1_kb=K,l1_ways=W,l1i_kb=K,l1i_ways=W,l2_kb=K,l2_ways=W,bp_bits=N).
 *
 * Debian's qemu-user is built with plugin support but does not ship the
 * plugin header, so the few API declarations used are written out below
 * (QEMU's plugin API, version 1, as in qemu 4.2 to 7.2).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- QEMU plugin API, version 1 (declarations only) ---- */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
typedef struct {
    const char *target_name;
    struct { int min; int cur; } version;
    bool system_emulation;
    union { struct { int smp_vcpus; int max_vcpus; } system; };
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_simple_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                                          uint64_t vaddr, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_exit_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
                                      void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

/* ---- the model ---- */
typedef struct {
    uint64_t *tag;       /* sets x ways line numbers, UINT64_MAX empty */
    uint64_t *stamp;     /* LRU stamps */
    uint64_t sets, ways, clock;
} Cache;

/* what a translation block's execution callback needs: its instructions,
 * its address and, when it ends in a conditional jump, the jump's address
 * and the address after it (cond 0 otherwise) */
typedef struct {
    uint64_t n, vaddr, bytes, jump, fall;
    int cond;
} Block;

typedef struct Thread {
    pid_t tid;
    unsigned int vcpu;
    uint64_t insns, next, mem, l1_miss, l2_miss, l1i_miss, l2i_miss, branches, mispredicts, recorded;
    Cache l1, l1i, l2;
    uint8_t *counters;   /* gshare's two-bit counters, 2^bp_bits */
    uint64_t history;    /* the last bp_bits outcomes, newest in bit 0 */
    uint64_t jump, fall; /* the conditional jump the last block ended in, if pending */
    int pending;
    struct Thread *all;  /* the list of every thread seen, for the final records */
} Thread;

static Thread *every;                 /* head of that list */
static __thread Thread *mine;         /* the calling host thread's */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static uint64_t window = 10000000;
static int model_cache = 1;
static unsigned line_shift = 6;
static uint64_t l1_bytes = 32 << 10, l1_ways = 8, l1i_bytes = 32 << 10, l1i_ways = 8, l2_bytes = 1 << 20,
                l2_ways = 16;
static uint64_t bp_bits = 14;

static void cache_init(Cache *c, uint64_t bytes, uint64_t ways)
{
    c->ways = ways;
    c->sets = bytes >> line_shift;
    c->sets = c->sets / ways ? c->sets / ways : 1;
    c->tag = malloc(c->sets * ways * sizeof(uint64_t));
    c->stamp = calloc(c->sets * ways, sizeof(uint64_t));
    memset(c->tag, 0xff, c->sets * ways * sizeof(uint64_t));
    c->clock = 0;
}

/* true on a hit; on a miss the LRU way takes the line */
static bool cache_access(Cache *c, uint64_t line)
{
    uint64_t base = (line % c->sets) * c->ways, victim = base;
    c->clock++;
    for (uint64_t i = base; i < base + c->ways; i++) {
        if (c->tag[i] == line) {
            c->stamp[i] = c->clock;
            return true;
        }
        if (c->stamp[i] < c->stamp[victim])
            victim = i;
    }
    c->tag[victim] = line;
    c->stamp[victim] = c->clock;
    return false;
}

/* The calling guest thread's counters.  Callbacks run on the guest
 * thread's own host thread, so a thread-local pointer finds them without a
 * system call; QEMU reuses the vCPU index of a thread that has exited, so
 * the index alone would merge two threads. */
static Thread *thread_of(unsigned int vcpu)
{
    Thread *t = mine;
    if (t != NULL)
        return t;
    t = calloc(1, sizeof(Thread));
    t->tid = (pid_t)syscall(SYS_gettid);
    t->vcpu = vcpu;
    t->next = window;
    if (model_cache) {
        cache_init(&t->l1, l1_bytes, l1_ways);
        cache_init(&t->l1i, l1i_bytes, l1i_ways);
        cache_init(&t->l2, l2_bytes, l2_ways);
    }
    t->counters = malloc((size_t)1 << bp_bits);
    memset(t->counters, 1, (size_t)1 << bp_bits);    /* weakly not taken */
    pthread_mutex_lock(&lock);
    t->all = every;
    every = t;
    pthread_mutex_unlock(&lock);
    mine = t;
    return t;
}

static void record(Thread *t)
{
    struct timespec ts;
    if (t->insns == t->recorded)
        return;
    clock_gettime(CLOCK_REALTIME, &ts);
    pthread_mutex_lock(&lock);
    fprintf(out, "%" PRIu64 " %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
            " %" PRIu64 "\n", (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, (int)t->tid, t->insns, t->mem,
            t->l1_miss, t->l2_miss, t->l1i_miss, t->l2i_miss, t->branches, t->mispredicts);
    pthread_mutex_unlock(&lock);
    t->recorded = t->insns;
}

/* the pending conditional jump of thread t went to `to`: predict, count, train */
static void resolve(Thread *t, uint64_t to)
{
    uint64_t mask = ((uint64_t)1 << bp_bits) - 1;
    uint64_t i = (t->jump ^ t->history) & mask;
    int taken = to != t->fall;
    t->branches++;
    if ((t->counters[i] >= 2) != taken)
        t->mispredicts++;
    if (taken && t->counters[i] < 3)
        t->counters[i]++;
    else if (!taken && t->counters[i] > 0)
        t->counters[i]--;
    t->history = ((t->history << 1) | (uint64_t)taken) & mask;
}

static void tb_exec(unsigned int vcpu, void *udata)
{
    Thread *t = thread_of(vcpu);
    const Block *b = udata;
    if (t->pending)
        resolve(t, b->vaddr);
    t->pending = b->cond;
    t->jump = b->jump;
    t->fall = b->fall;
    t->insns += b->n;
    if (model_cache && b->bytes > 0)
        for (uint64_t line = b->vaddr >> line_shift; line <= (b->vaddr + b->bytes - 1) >> line_shift; line++)
            if (!cache_access(&t->l1i, line)) {
                t->l1i_miss++;
                if (!cache_access(&t->l2, line))
                    t->l2i_miss++;
            }
    if (t->insns >= t->next) {
        record(t);
        t->next = (t->insns / window + 1) * window;
    }
}

static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
    Thread *t = thread_of(vcpu);
    uint64_t line = vaddr >> line_shift;
    t->mem++;
    if (!cache_access(&t->l1, line)) {
        t->l1_miss++;
        if (!cache_access(&t->l2, line))
            t->l2_miss++;
    }
}

/* whether the x86-64 instruction is a conditional jump: Jcc rel8 (70-7F),
 * Jcc rel32 (0F 80-8F), LOOPNE/LOOPE/LOOP/JrCXZ (E0-E3), after any legacy
 * or REX prefixes */
static int conditional_jump(const uint8_t *p, size_t len)
{
    size_t i = 0;
    while (i < len && (p[i] == 0x2e || p[i] == 0x3e || p[i] == 0x26 || p[i] == 0x36 || p[i] == 0x64
                       || p[i] == 0x65 || p[i] == 0x66 || p[i] == 0x67 || p[i] == 0xf2 || p[i] == 0xf3
                       || (p[i] & 0xf0) == 0x40))
        i++;
    if (i >= len)
        return 0;
    if ((p[i] >= 0x70 && p[i] <= 0x7f) || (p[i] >= 0xe0 && p[i] <= 0xe3))
        return 1;
    return p[i] == 0x0f && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x8f;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);
    /* one per translation, never freed: QEMU may still run a block it has
     * replaced, and the JIT's code is translated a bounded number of times */
    Block *b = calloc(1, sizeof(Block));
    b->n = n;
    b->vaddr = qemu_plugin_tb_vaddr(tb);
    if (n > 0) {
        struct qemu_plugin_insn *last = qemu_plugin_tb_get_insn(tb, n - 1);
        size_t len = qemu_plugin_insn_size(last);
        b->bytes = qemu_plugin_insn_vaddr(last) + len - b->vaddr;
        if (conditional_jump(qemu_plugin_insn_data(last), len)) {
            b->cond = 1;
            b->jump = qemu_plugin_insn_vaddr(last);
            b->fall = b->jump + len;
        }
    }
    qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, b);
    if (model_cache)
        for (size_t i = 0; i < n; i++)
            qemu_plugin_register_vcpu_mem_cb(qemu_plugin_tb_get_insn(tb, i), mem_access, QEMU_PLUGIN_CB_NO_REGS,
                                             QEMU_PLUGIN_MEM_RW, NULL);
}

/* a thread ends: its last partial window (when QEMU calls this on the
 * exiting thread itself; otherwise the process's end records it) */
static void vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu)
{
    if (mine != NULL && mine->vcpu == vcpu)
        record(mine);
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
    pthread_mutex_lock(&lock);
    Thread *t = every;
    pthread_mutex_unlock(&lock);
    for (; t != NULL; t = t->all)
        record(t);
    fflush(out);
}

static int parse_u64(const char *arg, const char *key, uint64_t *val)
{
    size_t k = strlen(key);
    char *end;
    if (strncmp(arg, key, k) != 0 || arg[k] != '=')
        return 0;
    *val = strtoull(arg + k + 1, &end, 10);
    if (*end != '\0' || end == arg + k + 1) {
        fprintf(stderr, "simprof_counter: argument %s is not a whole number\n", arg);
        return -1;
    }
    return 1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    const char *path = NULL;
    uint64_t line = 64, v;
    for (int i = 0; i < argc; i++) {
        int r;
        if (strncmp(argv[i], "out=", 4) == 0) { path = argv[i] + 4; continue; }
        if ((r = parse_u64(argv[i], "window", &window)) || (r = parse_u64(argv[i], "line", &line))
            || (r = parse_u64(argv[i], "l1_ways", &l1_ways)) || (r = parse_u64(argv[i], "l2_ways", &l2_ways))) {
            if (r < 0) return -1;
            continue;
        }
        if ((r = parse_u64(argv[i], "l1_kb", &v))) { if (r < 0) return -1; l1_bytes = v << 10; continue; }
        if ((r = parse_u64(argv[i], "l2_kb", &v))) { if (r < 0) return -1; l2_bytes = v << 10; continue; }
        if ((r = parse_u64(argv[i], "l1i_kb", &v))) { if (r < 0) return -1; l1i_bytes = v << 10; continue; }
        if ((r = parse_u64(argv[i], "l1i_ways", &l1i_ways))) { if (r < 0) return -1; continue; }
        if ((r = parse_u64(argv[i], "cache", &v))) { if (r < 0) return -1; model_cache = v != 0; continue; }
        if ((r = parse_u64(argv[i], "bp_bits", &bp_bits))) { if (r < 0) return -1; continue; }
        fprintf(stderr, "simprof_counter: unknown argument %s\n", argv[i]);
        return -1;
    }
    if (path == NULL || window == 0 || line == 0 || (line & (line - 1)) != 0 || l1_ways == 0 || l1i_ways == 0
        || l2_ways == 0 || bp_bits < 1 || bp_bits > 24) {
        fprintf(stderr, "simprof_counter: needs out=PATH, window > 0, line a power of two, ways > 0, "
                "bp_bits 1 to 24\n");
        return -1;
    }
    line_shift = (unsigned)__builtin_ctzll(line);
    out = fopen(path, "w");
    if (out == NULL) {
        perror(path);
        return -1;
    }
    fprintf(out, "time_ns os_tid instructions mem_accesses l1_misses l2_misses l1i_misses l2i_misses branches "
            "mispredicts\n");
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_vcpu_exit_cb(id, vcpu_exit);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
