// pairs N A... -- B...: runs commands A and B in turn, N pairs after 20 warm-up pairs (standard
// output to /dev/null), and prints each one's median in ms and B/A. Pairs in turn put both under
// the same load from moment to moment, where hyperfine's one-command-after-the-other blocks let a
// busy spell fall on one of them (bench/startup.sh's ratios moved by 0.2 between runs so).
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
extern char** environ;
static double run(char** argv) {
  posix_spawn_file_actions_t fa; posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  struct timespec a, b; pid_t pid; int st;
  clock_gettime(CLOCK_MONOTONIC, &a);
  if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0) { perror("spawn"); exit(1); }
  waitpid(pid, &st, 0);
  clock_gettime(CLOCK_MONOTONIC, &b);
  posix_spawn_file_actions_destroy(&fa);
  return (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
}
static int cmp(const void* x, const void* y) { double d = *(const double*)x - *(const double*)y; return d < 0 ? -1 : d > 0; }
int main(int argc, char** argv) {
  int n = atoi(argv[1]); char** A = argv + 2; char** B = NULL;
  for (int i = 2; i < argc; ++i) if (!strcmp(argv[i], "--")) { argv[i] = NULL; B = argv + i + 1; }
  double* ta = malloc(sizeof(double) * n); double* tb = malloc(sizeof(double) * n);
  for (int i = 0; i < 20; ++i) { run(A); run(B); }
  for (int i = 0; i < n; ++i) { ta[i] = run(A); tb[i] = run(B); }
  qsort(ta, n, sizeof(double), cmp); qsort(tb, n, sizeof(double), cmp);
  printf("A %.3f ms  B %.3f ms  B/A %.2f\n", ta[n / 2], tb[n / 2], tb[n / 2] / ta[n / 2]);
  return 0;
}
