/* Threads where the platform has them (WG_HAVE_THREADS, set by the build
 * for native targets), and nothing where it has not (the WebAssembly build
 * is single-threaded): a mutex whose calls do nothing, and a thread start
 * that says "unsupported", so a caller writes its parallel path once and
 * falls back to running the work itself.
 *
 * Only the few calls core/ needs: a worker pool of the pack indexer, not
 * a general threading library. */
#ifndef WG_UTIL_THREAD_H
#define WG_UTIL_THREAD_H

#include <stdbool.h>

#if WG_HAVE_THREADS
#include <pthread.h>
#endif

struct wg_mutex {
#if WG_HAVE_THREADS
	pthread_mutex_t m;
#else
	int unused;
#endif
};

struct wg_thread {
#if WG_HAVE_THREADS
	pthread_t t;
#else
	int unused;
#endif
};

/* True when wg_thread_start can start threads in this build. */
bool wg_threads_available(void);
/* True when the calling thread must not work beside the threads it
 * starts but only wait for them: in the threaded WebAssembly build their
 * host calls (files, progress) run on the main thread, which serves them
 * only while it waits (wasm/exports.h: wgjs_on_main_thread). */
bool wg_thread_caller_serves(void);
/* The online cores (1 when unknown, and always 1 without threads). */
unsigned wg_online_cpus(void);

/* WG_ENOMEM/WG_ERROR (with a message) when the system refuses. */
int wg_mutex_init(struct wg_mutex *m);
void wg_mutex_lock(struct wg_mutex *m);
void wg_mutex_unlock(struct wg_mutex *m);
void wg_mutex_destroy(struct wg_mutex *m);

/* Run fn(arg) on a new thread. WG_EUNSUPPORTED without threads, WG_ERROR
 * when the system refuses one (too many threads, out of memory): the
 * caller does the work itself then. */
int wg_thread_start(struct wg_thread *t, void *(*fn)(void *), void *arg);
void wg_thread_join(struct wg_thread *t);

#endif
