/*
 * An LD_PRELOAD library for the chaos harness's clock fault: the process's wall clock
 * (clock_gettime of CLOCK_REALTIME and CLOCK_REALTIME_COARSE, gettimeofday, time) reads the
 * real one plus the offset in seconds written in the file named by KAFKETTE_CLOCK_OFFSET_FILE
 * ("+300", "-300", "+0"; a missing file or no variable: no offset).  Monotonic and CPU clocks
 * are left alone, so timers and timeouts keep real time.  The file is re-read at most every
 * 10 ms of monotonic time, so a jump takes effect within 10 ms and a clock reading costs no
 * system call in between (a JVM reads its wall clock very often; libfaketime, which wraps
 * every clock and timed wait, slowed a Kafka node's start from 12 s to over 90 s here).
 * Built at test time by tests/chaos/preload.py; not part of Kafkette.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#define REREAD_NS 10000000LL

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static clock_gettime_fn real_clock_gettime(void) {
    static clock_gettime_fn real;
    clock_gettime_fn found = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
    if (found == NULL) {
        found = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
        __atomic_store_n(&real, found, __ATOMIC_RELEASE);
    }
    return found;
}

static long long read_offset_s(void) {
    const char *path = getenv("KAFKETTE_CLOCK_OFFSET_FILE");
    long long seconds = 0;
    FILE *file;
    if (path == NULL || (file = fopen(path, "re")) == NULL)
        return 0;
    if (fscanf(file, "%lld", &seconds) != 1)
        seconds = 0;
    fclose(file);
    return seconds;
}

static long long offset_s(void) {
    static long long cached_s, next_read_ns;
    struct timespec now;
    long long now_ns, next;
    if (real_clock_gettime()(CLOCK_MONOTONIC, &now) != 0)
        return __atomic_load_n(&cached_s, __ATOMIC_RELAXED);
    now_ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
    next = __atomic_load_n(&next_read_ns, __ATOMIC_RELAXED);
    if (now_ns >= next && __atomic_compare_exchange_n(&next_read_ns, &next, now_ns + REREAD_NS, 0,
                                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        __atomic_store_n(&cached_s, read_offset_s(), __ATOMIC_RELAXED);
    return __atomic_load_n(&cached_s, __ATOMIC_RELAXED);
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    int result = real_clock_gettime()(clock, ts);
    if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE))
        ts->tv_sec += offset_s();
    return result;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    struct timespec now;
    (void)tz;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0)
        return -1;
    tv->tv_sec = now.tv_sec;
    tv->tv_usec = now.tv_nsec / 1000;
    return 0;
}

time_t time(time_t *out) {
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0)
        return (time_t)-1;
    if (out != NULL)
        *out = now.tv_sec;
    return now.tv_sec;
}
