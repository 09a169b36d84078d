/*
 * anc-vm-pause open|exec DIR EXE-SUFFIX CONDITION: the power-cut tests' pause point inside the VM
 * (test/e2e/vm/). Test-only: the agent has no hook for it. A fanotify permission mark holds, until this
 * program answers, every open of the directory DIR itself (`open`: the agent opens it to fsync after each
 * rename) or every execution of a file in DIR (`exec`). An event from a process whose executable ends
 * with EXE-SUFFIX, at a moment when `sh -c CONDITION` exits 0 (ANC_VM_PAUSE_PATH names the file), is never
 * answered: that process stops right there, on the state CONDITION described. The program then flushes
 * the disk (so that state is what the power cut leaves) and prints "ANC-VM paused <CONDITION>" on the
 * serial console for the host, which kills qemu. Every other event is allowed at once. CONDITION must not
 * open DIR itself. Forks into the background once the mark is in place (systemd Type=forking), so the
 * unit is ready before the agent runs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

static int exe_ends_with(int pid, const char *suffix) {
    char link[64], exe[PATH_MAX];
    snprintf(link, sizeof link, "/proc/%d/exe", pid);
    ssize_t n = readlink(link, exe, sizeof exe - 1);
    if (n <= 0) return 0;
    exe[n] = 0;
    size_t k = strlen(suffix);
    return (size_t)n >= k && strcmp(exe + n - k, suffix) == 0;
}

int main(int argc, char **argv) {
    if (argc != 5 || (strcmp(argv[1], "open") != 0 && strcmp(argv[1], "exec") != 0)) {
        fprintf(stderr, "usage: %s open|exec DIR EXE-SUFFIX CONDITION\n", argv[0]);
        return 2;
    }
    unsigned long long mask = strcmp(argv[1], "open") == 0 ? FAN_OPEN_PERM | FAN_ONDIR : FAN_OPEN_EXEC_PERM | FAN_EVENT_ON_CHILD;
    int fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY | O_LARGEFILE);
    if (fan < 0 || fanotify_mark(fan, FAN_MARK_ADD, mask, AT_FDCWD, argv[2]) < 0) {
        perror("anc-vm-pause: fanotify");
        return 1;
    }
    pid_t child = fork();
    if (child < 0) return 1;
    if (child > 0) return 0;
    setsid();
    int held = 0;
    char buf[8192] __attribute__((aligned(8)));
    for (;;) {
        ssize_t len = read(fan, buf, sizeof buf);
        if (len <= 0) continue;
        struct fanotify_event_metadata *m = (struct fanotify_event_metadata *)buf;
        for (; FAN_EVENT_OK(m, len); m = FAN_EVENT_NEXT(m, len)) {
            char fdlink[64], path[PATH_MAX] = "";
            snprintf(fdlink, sizeof fdlink, "/proc/self/fd/%d", m->fd);
            ssize_t n = readlink(fdlink, path, sizeof path - 1);
            path[n > 0 ? n : 0] = 0;
            if (!held && exe_ends_with(m->pid, argv[3]) && setenv("ANC_VM_PAUSE_PATH", path, 1) == 0 && system(argv[4]) == 0) {
                held = 1;
                sync();
                FILE *tty = fopen("/dev/console", "w");
                if (tty) {
                    fprintf(tty, "\nANC-VM paused %s (%s)\n", argv[4], path);
                    fclose(tty);
                }
                continue; /* never answered: the agent waits in open() until the power goes */
            }
            struct fanotify_response r = {.fd = m->fd, .response = FAN_ALLOW};
            if (write(fan, &r, sizeof r) < 0) perror("anc-vm-pause: respond");
            close(m->fd);
        }
    }
}
