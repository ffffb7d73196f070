// The floor of an idle poller on this machine, for scripts/bench-footprint.sh: the same GET as the agent
// every second on one kept-alive connection, with nothing else: clock_nanosleep to the next tick, send, a
// blocking recv of the answer (3 system calls and 2 wake-ups per poll; no parsing, no event loop).
// Usage: idle-floor HOST PORT
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: idle-floor HOST PORT\n");
    return 2;
  }
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[2]))};
  if (inet_pton(AF_INET, argv[1], &addr.sin_addr) != 1) {
    fprintf(stderr, "idle-floor: bad address %s\n", argv[1]);
    return 2;
  }
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, (struct sockaddr*)&addr, sizeof addr) != 0) {
    perror("idle-floor: connect");
    return 1;
  }
  char request[256];
  const int length = snprintf(request, sizeof request,
                              "GET /metadata/scheduledevents?api-version=2020-07-01 HTTP/1.1\r\n"
                              "Host: %s:%s\r\nMetadata: true\r\n\r\n",
                              argv[1], argv[2]);
  static char answer[65536];
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (;;) {
    next.tv_sec += 1;
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    if (send(fd, request, (size_t)length, MSG_NOSIGNAL) != length || recv(fd, answer, sizeof answer, 0) <= 0) {
      perror("idle-floor: exchange");
      return 1;
    }
  }
}
