#include "tests/support/check_run.h"

#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int run(Suite *s, int in_process) {
  SRunner *sr = srunner_create(s);
  if (in_process) srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_VERBOSE);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int run_suite(Suite *s) { return run(s, 0); }

int run_suite_in_process(Suite *s) { return run(s, 1); }

int run_with_file_limit(const char *cmd, unsigned long long bytes, char *out, size_t len) {
  int fd[2];
  ck_assert_int_eq(pipe(fd), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    struct rlimit rl = {(rlim_t)bytes, (rlim_t)bytes};
    close(fd[0]);
    dup2(fd[1], 1);
    signal(SIGXFSZ, SIG_IGN); /* ignored across exec: the command sees EFBIG */
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(126);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  size_t n = 0;
  char chunk[4096];
  ssize_t got;
  while ((got = read(fd[0], chunk, sizeof chunk)) != 0) {
    if (got < 0) {
      ck_assert_int_eq(errno, EINTR);
      continue;
    }
    size_t keep = len == 0 ? 0 : (size_t)got < len - 1 - n ? (size_t)got : len - 1 - n;
    memcpy(out + n, chunk, keep);
    n += keep;
  }
  if (len) out[n] = '\0';
  close(fd[0]);
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
