/*
 * A deliberately broken hotfix binary for the hotfix-safety tests (test/e2e/boot/hotfix-safety.test.ts):
 * a small ELF executable that behaves like the real agent (it execs the real build at REAL) except for the
 * one fault it is compiled with. Test-only: the product code has no hook for any of this.
 *   -DCRASH_PROVISION     `provision` (not --dry-run) dies of SIGSEGV before doing anything
 *   -DHANG_VERSION        `version` never answers
 *   -DFAIL_SELF_TEST      `provision --dry-run` exits 1 with an agent-style error
 *   -DERROR_AFTER_SCRIPTS `provision` runs the real provisioning (scripts included), then exits 1
 *   -DCONFIG_ERROR        `provision` (not --dry-run) is handed a configuration file that does not exist,
 *                         so the real agent fails with its own configuration error before the scripts
 *   -DDELETE_BAKED        `version` deletes the baked binary (<AKS_NODE_ROOT>/opt/azure/containers/
 *                         aks-node-controller), then answers like the real agent
 */
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef REAL
#error "compile with -DREAL='\"/path/to/the/real/agent\"'"
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
#if defined(CRASH_PROVISION)
    if (provision && !dry) {
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none); /* no core file in the sandbox */
        raise(SIGSEGV);
    }
#elif defined(HANG_VERSION)
    if (strcmp(command, "version") == 0)
        for (;;) pause();
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
#elif defined(DELETE_BAKED)
    if (strcmp(command, "version") == 0) {
        char baked[4096];
        const char *root = getenv("AKS_NODE_ROOT");
        snprintf(baked, sizeof baked, "%s/opt/azure/containers/aks-node-controller", root ? root : "");
        unlink(baked);
    }
#else
#error "compile with one fault: CRASH_PROVISION, HANG_VERSION, FAIL_SELF_TEST, ERROR_AFTER_SCRIPTS, CONFIG_ERROR or DELETE_BAKED"
#endif
    execv(REAL, argv);
    perror("execv " REAL);
    return 127;
}
