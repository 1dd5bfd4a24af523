/*
 * An LD_PRELOAD library for the chaos harness's slow-disk fault: fsync(2) and fdatasync(2)
 * wait the number of milliseconds written in the file named by KAFKETTE_FSYNC_DELAY_FILE
 * (re-read at every call; 0, a missing file or no variable: no wait), then do the real call;
 * with KAFKETTE_FSYNC_LOG set, each fsync that succeeded appends the path of its file to that
 * file (a witness of what was made durable, and when).
 * Built at test time by tests/chaos/slow_disk.py; not part of Kafkette.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long delay_ms(void) {
    const char *path = getenv("KAFKETTE_FSYNC_DELAY_FILE");
    long ms = 0;
    FILE *file;
    if (path == NULL || (file = fopen(path, "r")) == NULL)
        return 0;
    if (fscanf(file, "%ld", &ms) != 1)
        ms = 0;
    fclose(file);
    return ms;
}

static void wait_delay(void) {
    long ms = delay_ms();
    if (ms > 0) {
        struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
        while (nanosleep(&pause, &pause) != 0) {
        }
    }
}

static void log_synced(int fd) {
    const char *log_path = getenv("KAFKETTE_FSYNC_LOG");
    char link[64], target[4096];
    ssize_t length;
    int log_fd;
    if (log_path == NULL)
        return;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    length = readlink(link, target, sizeof target - 1);
    if (length < 0)
        return;
    target[length++] = '\n';
    log_fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (log_fd < 0)
        return;
    if (write(log_fd, target, (size_t)length) < 0) {
    }
    close(log_fd);
}

int fsync(int fd) {
    static int (*real_fsync)(int);
    int result;
    if (real_fsync == NULL)
        real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    wait_delay();
    result = real_fsync(fd);
    if (result == 0)
        log_synced(fd);
    return result;
}

int fdatasync(int fd) {
    static int (*real_fdatasync)(int);
    int result;
    if (real_fdatasync == NULL)
        real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    wait_delay();
    result = real_fdatasync(fd);
    if (result == 0)
        log_synced(fd);
    return result;
}
