/*
 * A deliberately broken hotfix binary for the hotfix-safety tests (test/e2e/boot/hotfix-safety.test.ts):
 * a small ELF executable that behaves like the real agent (it execs the real build at REAL) except for the
 * one fault it is compiled with. Test-only: the product code has no hook for any of this.
 *   -DCRASH_PROVISION     `provision` (not --dry-run) dies of SIGSEGV before doing anything
 *   -DHANG_VERSION        `version` never answers
 *   -DSLOW_VERSION        `version` answers like the real agent, after 6 s (issue 41 R4-7)
 *   -DFAIL_SELF_TEST      `provision --dry-run` exits 1 with an agent-style error
 *   -DERROR_AFTER_SCRIPTS `provision` runs the real provisioning (scripts included), then exits 1
 *   -DCONFIG_ERROR        `provision` (not --dry-run) is handed a configuration file that does not exist,
 *                         so the real agent fails with its own configuration error before the scripts
 *   -DCRASH_BEFORE_SCRIPTS `provision` runs the real agent under ptrace (x86-64) and kills it the moment
 *                         it opens the scripts-started marker: after everything before the scripts (the
 *                         script hotfix applied), before the scripts; then dies of SIGSEGV itself
 *   -DDELETE_BAKED        `version` deletes the baked binary (<AKS_NODE_ROOT>/opt/azure/containers/
 *                         aks-node-controller), then answers like the real agent
 * With -DVERSION='"X"' `version` prints X itself (the real-boot VM, test/e2e/vm/, delegates to the baked
 * agent there: the hotfix's own build is not on that disk).
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef REAL
#error "compile with -DREAL='\"/path/to/the/real/agent\"'"
#endif

#if defined(CRASH_BEFORE_SCRIPTS)
/* Whether the tracee's string at addr contains needle (reads up to 4 KiB). */
static int tracee_path_has(pid_t pid, unsigned long addr, const char *needle) {
    char buf[4096 + 8];
    size_t n = 0;
    while (n < 4096) {
        long word = ptrace(PTRACE_PEEKDATA, pid, (void *)(addr + n), 0);
        memcpy(buf + n, &word, sizeof word);
        if (memchr(&word, 0, sizeof word)) break;
        n += sizeof word;
    }
    buf[4096] = 0;
    return strstr(buf, needle) != NULL;
}

static void crash(void) {
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    raise(SIGSEGV);
}

static int trace_until_marker(char **argv) {
    pid_t child = fork();
    if (child == 0) {
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        raise(SIGSTOP);
        execv(REAL, argv);
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    ptrace(PTRACE_SETOPTIONS, child, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);
    int deliver = 0, execed = 0;
    for (;;) {
        if (ptrace(PTRACE_SYSCALL, child, 0, deliver) < 0) break;
        if (waitpid(child, &status, 0) < 0) break;
        deliver = 0;
        if (WIFEXITED(status)) return WEXITSTATUS(status);
        if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
        if (!WIFSTOPPED(status)) continue;
        int sig = WSTOPSIG(status);
        if (sig == (SIGTRAP | 0x80)) {
            struct user_regs_struct regs;
            ptrace(PTRACE_GETREGS, child, 0, &regs);
            unsigned long path = regs.orig_rax == 257 ? regs.rsi : regs.orig_rax == 2 ? regs.rdi : 0;
            if (path && tracee_path_has(child, path, "aks-node-controller-scripts-started")) {
                kill(child, SIGKILL);
                waitpid(child, &status, 0);
                crash();
            }
        } else if (sig == SIGTRAP && !execed) {
            execed = 1; /* the stop after execve */
        } else {
            deliver = sig;
        }
    }
    return 1;
}
#endif

static int has(int argc, char **argv, const char *flag) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], flag) == 0) return 1;
    return 0;
}

int main(int argc, char **argv) {
    const char *command = argc > 1 ? argv[1] : "";
    int provision = strcmp(command, "provision") == 0;
    int dry = has(argc, argv, "--dry-run");
    argv[0] = REAL;
    (void)provision;
    (void)dry;
#ifdef VERSION
    if (strcmp(command, "version") == 0) {
        puts(VERSION);
        return 0;
    }
#endif
#if defined(CRASH_PROVISION)
    if (provision && !dry) {
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none); /* no core file in the sandbox */
        raise(SIGSEGV);
    }
#elif defined(HANG_VERSION)
    if (strcmp(command, "version") == 0)
        for (;;) pause();
#elif defined(SLOW_VERSION)
    if (strcmp(command, "version") == 0) sleep(6);
#elif defined(FAIL_SELF_TEST)
    if (provision && dry) {
        fputs("aks-node-controller: self-test stand-in: cannot build the provisioning command\n", stderr);
        return 1;
    }
#elif defined(ERROR_AFTER_SCRIPTS)
    if (provision && !dry) {
        pid_t child = fork();
        if (child == 0) {
            execv(REAL, argv);
            _exit(127);
        }
        int status = 0;
        waitpid(child, &status, 0);
        fputs("aks-node-controller: stand-in agent error after the provisioning scripts\n", stderr);
        return 1;
    }
#elif defined(CONFIG_ERROR)
    if (provision && !dry) {
        char *args[] = {REAL, "provision", "--provision-config=/nonexistent/aks-node-controller-config.json", NULL};
        execv(REAL, args);
    }
#elif defined(CRASH_BEFORE_SCRIPTS)
    if (provision && !dry) return trace_until_marker(argv);
#elif defined(DELETE_BAKED)
    if (strcmp(command, "version") == 0) {
        char baked[4096];
        const char *root = getenv("AKS_NODE_ROOT");
        snprintf(baked, sizeof baked, "%s/opt/azure/containers/aks-node-controller", root ? root : "");
        unlink(baked);
    }
#else
#error "compile with one fault: CRASH_PROVISION, HANG_VERSION, SLOW_VERSION, FAIL_SELF_TEST, ERROR_AFTER_SCRIPTS, CONFIG_ERROR, CRASH_BEFORE_SCRIPTS or DELETE_BAKED"
#endif
    execv(REAL, argv);
    perror("execv " REAL);
    return 127;
}
