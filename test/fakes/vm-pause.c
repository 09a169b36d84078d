/*
 * anc-vm-pause DIR CONDITION: the power-cut tests' pause point inside the VM (test/e2e/vm/). Test-only: the
 * agent has no hook for it. A fanotify permission mark on the directory DIR itself (not its files) holds
 * every open of DIR until this program answers. An open by an aks-node-controller process (baked, hotfix
 * or pending candidate) at a moment when `sh -c CONDITION` exits 0 is never answered: that process stops
 * right there, on a state CONDITION described (the agent opens the directory to fsync it after each
 * rename). The program then flushes the disk (so that state is what the power cut leaves) and prints
 * "ANC-VM paused <CONDITION>" on the serial console for the host, which kills qemu. Every other open is
 * allowed. CONDITION must not open DIR itself (it would wait for this program). Forks into the
 * background once the mark is in place (systemd Type=forking), so the unit is ready before the agent runs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

static int is_agent(int pid) {
    char link[64], exe[PATH_MAX];
    snprintf(link, sizeof link, "/proc/%d/exe", pid);
    ssize_t n = readlink(link, exe, sizeof exe - 1);
    if (n <= 0) return 0;
    exe[n] = 0;
    return strstr(exe, "aks-node-controller") != NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s DIR CONDITION\n", argv[0]);
        return 2;
    }
    int fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY | O_LARGEFILE);
    if (fan < 0 || fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ONDIR, AT_FDCWD, argv[1]) < 0) {
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
            if (!held && is_agent(m->pid) && system(argv[2]) == 0) {
                held = 1;
                sync();
                FILE *tty = fopen("/dev/ttyS0", "w");
                if (tty) {
                    fprintf(tty, "\nANC-VM paused %s\n", argv[2]);
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
