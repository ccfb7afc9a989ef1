#pragma once
// The front end and code generation walk expression trees recursively; the language bounds
// expression depth (1500 chained operations), and the whole compilation runs on a thread with
// a 512 MiB stack so that the bound holds in every build (sanitizer frames are several times
// larger than release ones). Only the pages actually used are committed.
#include <pthread.h>

namespace tensorium_cli {

inline int runWithLargeStack(int (*entry)(int, char **), int argc, char **argv) {
  struct Call {
    int (*entry)(int, char **);
    int argc;
    char **argv;
    int result;
  } call{entry, argc, argv, 1};
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, size_t{512} << 20) == 0 &&
      pthread_create(
          &thread, &attr,
          [](void *p) -> void * {
            Call *c = static_cast<Call *>(p);
            c->result = c->entry(c->argc, c->argv);
            return nullptr;
          },
          &call) == 0) {
    pthread_attr_destroy(&attr);
    pthread_join(thread, nullptr);
    return call.result;
  }
  return entry(argc, argv); // no thread: the process stack
}

} // namespace tensorium_cli
