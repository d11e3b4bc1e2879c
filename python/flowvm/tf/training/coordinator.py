"""tf.train.Coordinator: lets threads ask each other to stop, and joins them.

A thread that fails calls request_stop(exception) (or runs under
stop_on_exception()); the first such exception is re-raised by join().
Exceptions of clean_stop_exception_types (OutOfRangeError by default: an
input queue ran dry) stop the threads without being reported.
"""
import contextlib
import sys
import threading
import time

from flowvm.tf.framework import errors

__all__ = ["Coordinator", "LooperThread"]


class Coordinator(object):
    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()

    def _filter_exception(self, ex):
        value = ex[1] if isinstance(ex, tuple) else ex
        if isinstance(value, self._clean_stop_exception_types):
            return None
        return ex

    def request_stop(self, ex=None):
        """Asks every thread to stop; `ex` (an exception or an exc_info
        tuple), the first reported, is raised again by join()."""
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                # Nobody will join again: let the caller see it now.
                if isinstance(ex, tuple):
                    raise ex[1].with_traceback(ex[2])
                if ex is not None:
                    raise ex
            if not self._stop_event.is_set():
                if ex is not None and self._exc_info_to_raise is None:
                    if isinstance(ex, tuple):
                        self._exc_info_to_raise = ex
                    else:
                        info = sys.exc_info()
                        if info[1] is not ex:
                            info = (type(ex), ex, ex.__traceback__)
                        self._exc_info_to_raise = info
                self._stop_event.set()

    def clear_stop(self):
        """Makes should_stop() False again (to restart the threads)."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            if self._stop_event.is_set():
                self._stop_event.clear()

    def should_stop(self):
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A block whose exception is reported with request_stop (and not raised)."""
        try:
            yield
        except:  # noqa: E722 - any exception stops the threads, as TensorFlow's
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        """Blocks until a stop is requested (or timeout seconds); returns should_stop()."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits until a stop is requested and the threads (the given ones
        and the registered ones) end, giving them stop_grace_period_secs
        after the request. Re-raises the reported exception; RuntimeError
        when threads are still alive after the grace period (unless
        ignore_live_threads)."""
        with self._lock:
            all_threads = set(self._registered_threads)
        if threads is not None:
            all_threads |= set(threads)
        all_threads = list(all_threads)
        while any(t.is_alive() for t in all_threads) and not self.wait_for_stop(1.0):
            pass
        deadline = time.monotonic() + stop_grace_period_secs
        for t in all_threads:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            t.join(left)
        stragglers = [t.name for t in all_threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                _, value, tb = self._exc_info_to_raise
                raise value.with_traceback(tb)
            if stragglers:
                if not ignore_live_threads:
                    raise RuntimeError("Coordinator stopped with threads still running: %s" % " ".join(stragglers))

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        with self._lock:
            if self._exc_info_to_raise:
                _, value, tb = self._exc_info_to_raise
                raise value.with_traceback(tb)

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a LooperThread calling target(*args, **kwargs) every timer_interval_secs."""
        t = LooperThread(self, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        t.start()
        return t


class LooperThread(threading.Thread):
    """A thread calling target (or run_loop) every timer_interval_secs until the coordinator stops."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError("'coord' argument must be a Coordinator: %s" % coord)
        super(LooperThread, self).__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        self._args = args or ()
        self._kwargs = kwargs or {}
        self._coord.register_thread(self)

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_time = time.time() + self._timer_interval_secs
                while not self._coord.wait_for_stop(max(0.0, next_time - time.time())):
                    next_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        pass

    def stop_loop(self):
        pass

    def run_loop(self):
        if self._target:
            self._target(*self._args, **self._kwargs)
