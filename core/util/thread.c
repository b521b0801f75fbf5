#include "util/thread.h"

#include <string.h>
#include <unistd.h>

#include "util/error.h"

#if WG_HAVE_THREADS && defined(__EMSCRIPTEN__)
#include <emscripten/em_js.h>
#include <emscripten/threading.h>
#endif

#if WG_HAVE_THREADS

bool wg_threads_available(void) { return true; }

#ifdef __EMSCRIPTEN__
/* The threaded WebAssembly module (thread.h). */
bool wg_thread_caller_serves(void) { return true; }

/* navigator.hardwareConcurrency, or Node's os.cpus() (musl's sysconf
 * here says 1). */
unsigned wg_online_cpus(void)
{
	int n = emscripten_num_logical_cores();
	return n > 0 ? (unsigned)n : 1;
}

/* Whether the Worker the next thread would get (the glue pops the last
 * unused one) has loaded the module. */
EM_JS(int, wg_pool_worker_loaded, (void), {
	var w = PThread.unusedWorkers;
	return w.length && w[w.length - 1].loaded ? 1 : 0;
});
#else
bool wg_thread_caller_serves(void) { return false; }

unsigned wg_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}
#endif

int wg_mutex_init(struct wg_mutex *m)
{
	int rc = pthread_mutex_init(&m->m, NULL);
	if (rc)
		return wg_error_set(WG_ERROR, "cannot create a mutex: %s", strerror(rc));
	return 0;
}

void wg_mutex_lock(struct wg_mutex *m) { pthread_mutex_lock(&m->m); }
void wg_mutex_unlock(struct wg_mutex *m) { pthread_mutex_unlock(&m->m); }
void wg_mutex_destroy(struct wg_mutex *m) { pthread_mutex_destroy(&m->m); }

int wg_thread_start(struct wg_thread *t, void *(*fn)(void *), void *arg)
{
	int rc;
#ifdef __EMSCRIPTEN__
	/* The pool's Workers load in the background (wasm/wasm.cmake:
	 * PTHREAD_POOL_DELAY_LOAD), so that loading the module does not wait
	 * for them. One still loading would start this thread only once its
	 * creator returns to the event loop, which a caller that waits for
	 * it never does: refuse, the caller does the work. */
	if (!wg_pool_worker_loaded())
		return wg_error_set(WG_ERROR, "cannot start a thread: its Worker is still loading");
#endif
	rc = pthread_create(&t->t, NULL, fn, arg);
	if (rc)
		return wg_error_set(WG_ERROR, "cannot start a thread: %s", strerror(rc));
	return 0;
}

void wg_thread_join(struct wg_thread *t) { pthread_join(t->t, NULL); }

#else /* no threads: one worker, the caller's */

bool wg_threads_available(void) { return false; }
bool wg_thread_caller_serves(void) { return false; }
unsigned wg_online_cpus(void) { return 1; }
int wg_mutex_init(struct wg_mutex *m) { m->unused = 0; return 0; }
void wg_mutex_lock(struct wg_mutex *m) { (void)m; }
void wg_mutex_unlock(struct wg_mutex *m) { (void)m; }
void wg_mutex_destroy(struct wg_mutex *m) { (void)m; }

int wg_thread_start(struct wg_thread *t, void *(*fn)(void *), void *arg)
{
	(void)t; (void)fn; (void)arg;
	return wg_error_set(WG_EUNSUPPORTED, "this build has no threads");
}

void wg_thread_join(struct wg_thread *t) { (void)t; }

#endif
