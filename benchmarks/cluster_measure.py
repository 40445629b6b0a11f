"""Watch a ``puf evaluate --scheduler`` run on a LocalCluster: each pass's time, memory and tasks.

Used by ``benchmarks/evaluate_at_scale.py --scheduler local`` (not a test). The script starts
a ``distributed.LocalCluster`` (worker processes on this machine, one thread each), runs the
command against its address, and meanwhile

- reads the command's progress bars as they are drawn: a pass runs from its bar's first
  drawing to its last (the pass's preparation on the client comes before its bar), and
  a task belongs to the pass whose bar was drawn when it finished;
- samples, twice a second, the resident memory of the command and of every worker;
- records every task the scheduler ran (its task stream): worker, start and stop.

Per pass it reports the wall seconds, the tasks and their compute seconds (wall, on the
workers: the sum, the largest), the workers' CPU seconds, the peak memory of the command and
of the workers (summed) inside the pass, and the projection of the tasks' time on N
unloaded workers ``T(N) = max(C / N, largest task · C / Σ task)``, C the workers' CPU
seconds in the pass (a task's wall time under load overstates its work by Σ task / C).
CPU seconds are the command's (user + system, ``/usr/bin/time -v``) plus the workers'.
"""

import re
import subprocess
import threading
import time

_BAR = re.compile(r"^\s*([^:\r\n|]+?):\s+\d+%\|[^|]*\|\s*(\d+)/(\d+)")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def start_cluster(workers, *, heap=True):
    """A LocalCluster of ``workers`` one-thread processes and its client, recording tasks.

    ``heap``: the workers keep arrays in the heap (``MALLOC_MMAP_THRESHOLD_``); False keeps
    dask's own worker environment.
    """
    import dask
    from distributed import Client, LocalCluster

    settings = {
        "distributed.scheduler.dashboard.status.task-stream-length": 2_000_000,
        "distributed.scheduler.dashboard.tasks.task-stream-length": 2_000_000,
    }
    if heap:
        # dask's own MALLOC_TRIM_THRESHOLD_ switches off glibc's adaptive mmap threshold, so
        # every tile temporary over 128 KiB is mapped and unmapped afresh, page faults and all
        # (docs/benchmarks/cluster.md). A fixed 1 GiB threshold keeps them in the heap.
        settings["distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_"] = 2**30
    dask.config.set(settings)
    cluster = LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit="10GB"
    )
    client = Client(cluster)
    client.get_task_stream(count=1)  # installs the scheduler's task-stream plugin before the run
    return cluster, client


def _processes(client):
    import psutil

    return [psutil.Process(pid) for pid in client.run(lambda: __import__("os").getpid()).values()]


def _tree(process):
    """(RSS bytes, user + system CPU s) of ``process`` and its children (0, 0 once it is gone)."""
    import psutil

    try:
        tree = [process, *process.children(recursive=True)]
        return sum(p.memory_info().rss for p in tree), sum(sum(p.cpu_times()[:2]) for p in tree)
    except psutil.Error:
        return 0, 0.0


class _Sampler(threading.Thread):
    """Samples (time, command RSS, workers' RSS, workers' CPU s) every ``interval`` s until stopped."""

    def __init__(self, command, workers, interval=0.5):
        super().__init__(daemon=True)
        self.command, self.workers, self.interval = command, workers, interval
        self.samples, self.stop = [], threading.Event()

    def run(self):
        while not self.stop.is_set():
            workers = [_tree(p) for p in self.workers]
            rss, cpu = sum(w[0] for w in workers), sum(w[1] for w in workers)
            self.samples.append((time.time(), _tree(self.command)[0], rss, cpu))
            self.stop.wait(self.interval)


def _read_bars(stream, bars, lines):
    """Record (first, last) drawing time of every progress bar read from ``stream``."""
    buffer = ""
    while chunk := stream.read1(4096) if hasattr(stream, "read1") else stream.read(4096):
        text = chunk.decode("utf-8", "replace") if isinstance(chunk, bytes) else chunk
        lines.append(text)
        buffer += text
        *done, buffer = re.split(r"[\r\n]", buffer)
        for piece in done:
            found = _BAR.match(_ANSI.sub("", piece))
            if found:
                _drawn(bars, found.group(1).strip(), int(found.group(2)), int(found.group(3)), time.time())


def _drawn(bars, name, done, total, now):
    """Extend the bar's latest span, or start a new one (``name #2``) when a bar is drawn at 0."""
    runs = [key for key in bars if key == name or key.startswith(f"{name} #")]
    key = runs[-1] if runs else name
    if runs and (done == 0 or done < bars[key][2]):
        key = f"{name} #{len(runs) + 1}"
    first = bars[key][0] if key in bars else now
    bars[key] = (first, now, done, total)


def run_watched(command, client):
    """Run ``command`` (a list, under /usr/bin/time -v); return (stderr, bars, samples, tasks, worker CPU s)."""
    import psutil

    workers = _processes(client)
    cpu_before = sum(sum(p.cpu_times()[:2]) for p in workers)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sampler = _Sampler(psutil.Process(process.pid), workers)
    sampler.start()
    bars, lines = {}, []
    reader = threading.Thread(target=_read_bars, args=(process.stderr, bars, lines), daemon=True)
    reader.start()
    stdout = process.stdout.read()
    process.wait()
    reader.join()
    sampler.stop.set()
    sampler.join()
    worker_cpu = sum(sum(p.cpu_times()[:2]) for p in workers) - cpu_before
    tasks = client.get_task_stream(start=0)
    return process.returncode, stdout.decode(), "".join(lines), bars, sampler.samples, tasks, worker_cpu


def pass_rows(bars, samples, tasks, *, projected=(1, 2, 4, 8, 16, 32)):
    """One dict per pass: wall, tasks, compute seconds, peak memory, projected task wall on N workers."""
    spans = []
    for task in tasks:
        compute = [s for s in task["startstops"] if s["action"] == "compute"]
        if compute:
            spans.append((compute[0]["start"], compute[-1]["stop"]))
    rows = []
    for name, (first, last, _, count) in sorted(bars.items(), key=lambda item: item[1][0]):
        # A task belongs to the pass whose bar was drawn when it finished.
        inside = [stop - start for start, stop in spans if first <= stop <= last + 0.5]
        window = [s for s in samples if first <= s[0] <= last + 0.5] or [(first, 0, 0, 0.0)]
        total, largest = sum(inside), max(inside, default=0.0)
        cpu = window[-1][3] - window[0][3]
        # Tasks' wall seconds under load overstate their work: the projection divides the
        # workers' CPU seconds in the pass, and scales the largest task by the same ratio.
        busy = cpu / total if total else 0.0
        rows.append(
            {
                "pass": name,
                "wall": last - first,
                "tasks": len(inside),
                "bar_total": count,
                "task_seconds": total,
                "largest_task": largest,
                "workers_cpu": cpu,
                "command_peak": max(s[1] for s in window),
                "workers_peak": max(s[2] for s in window),
                "projected": {n: max(cpu / n, largest * busy) for n in projected},
            }
        )
    return rows
