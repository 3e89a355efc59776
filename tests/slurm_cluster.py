"""A throw-away single-node SLURM cluster for the SLURM executor test.

Starts munged, slurmctld and slurmd from Debian's packages (slurm-wlm 22.05,
munge) on this host, and stops every daemon it started. What each setting is
for (measured when this was first tried, see the test's docstring):

* ``slurm.conf`` goes to ``/etc/slurm/slurm.conf``: the executor plugin's job
  step runs ``srun`` without the submitting environment's ``SLURM_CONF``.
* No slurmdbd, so the workflow must poll with ``squeue``; completed jobs stay
  visible to ``squeue`` for ``MinJobAge`` seconds, which must exceed the
  plugin's first status delay several times over or the plugin falls back to
  ``sacct`` and waits forever.
* ``DefMemPerCPU``: without it one job takes the node's whole memory and the
  others queue behind it.
* munge's socket folder must be mode 755 for slurmd's job steps to reach it.

The cluster refuses to start over a ``slurm.conf`` it did not write, so a
host's real cluster is never touched.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

CONF = Path("/etc/slurm/slurm.conf")
MARK = "# written by the pipeline's SLURM test cluster"
DAEMONS = ("munged", "slurmctld", "slurmd")
MIN_JOB_AGE_S = 300


def missing() -> str | None:
    """Why no cluster can be started here, or None when one can."""
    absent = [d for d in (*DAEMONS, "sbatch", "squeue") if shutil.which(d) is None]
    if absent:
        return "SLURM/munge not installed (missing: " + ", ".join(absent) + "); `make system-packages` installs them"
    if os.geteuid() != 0:
        return "the test cluster's daemons run as root"
    if CONF.exists() and MARK not in CONF.read_text():
        return f"{CONF} belongs to another cluster; not touching it"
    return None


class SingleNodeCluster:
    """Context manager: ``with SingleNodeCluster(tmp) as c: ...``.

    ``state`` is a scratch folder for spool, state, logs and pid files.
    """

    def __init__(self, state: Path, cpus: int | None = None, mem_mb: int = 8000):
        self.state = Path(state)
        self.cpus = cpus or os.cpu_count() or 1
        self.mem_mb = mem_mb
        self.node = socket.gethostname().split(".")[0]
        self.pids: dict[str, Path] = {}

    # -- set-up ---------------------------------------------------------
    def _write_conf(self) -> None:
        s = self.state
        for sub in ("spool", "state", "log"):
            (s / sub).mkdir(parents=True, exist_ok=True)
        CONF.parent.mkdir(parents=True, exist_ok=True)
        CONF.write_text(
            f"""{MARK}
ClusterName=pipeline-test
SlurmctldHost={self.node}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation={s}/state
SlurmdSpoolDir={s}/spool
SlurmctldPidFile={s}/slurmctld.pid
SlurmdPidFile={s}/slurmd.pid
SlurmctldLogFile={s}/log/slurmctld.log
SlurmdLogFile={s}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MinJobAge={MIN_JOB_AGE_S}
DefMemPerCPU=1000
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName={self.node} CPUs={self.cpus} RealMemory={self.mem_mb} State=UNKNOWN
PartitionName=debug Nodes={self.node} Default=YES MaxTime=INFINITE State=UP
"""
        )

    def _start_munge(self) -> None:
        run = Path("/run/munge")
        run.mkdir(parents=True, exist_ok=True)
        os.chmod(run, 0o755)
        key = Path("/etc/munge/munge.key")
        if not key.exists():
            subprocess.run(["mungekey", "--create", "--keyfile", str(key)], check=True)
        pid = self.state / "munged.pid"
        subprocess.run(
            ["munged", "--force", f"--pid-file={pid}", f"--log-file={self.state}/log/munged.log"],
            check=True,
        )
        self.pids["munged"] = pid

    def _start_slurm(self) -> None:
        for daemon in ("slurmctld", "slurmd"):
            subprocess.run([daemon], check=True)
            self.pids[daemon] = self.state / f"{daemon}.pid"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            out = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True)
            if out.returncode == 0 and out.stdout.strip() in ("idle", "mixed"):
                return
            time.sleep(0.5)
        raise RuntimeError(f"SLURM node never became idle; see {self.state}/log")

    def __enter__(self) -> "SingleNodeCluster":
        why = missing()
        if why:
            raise RuntimeError(why)
        self._write_conf()
        try:
            self._start_munge()
            self._start_slurm()
        except BaseException:
            self.stop()
            raise
        return self

    # -- tear-down ------------------------------------------------------
    def stop(self) -> None:
        """Stop every daemon this cluster started, then remove its config."""
        for daemon in reversed(DAEMONS):
            pidfile = self.pids.pop(daemon, None)
            if pidfile is None or not pidfile.exists():
                continue
            try:
                pid = int(pidfile.read_text().split()[0])
                os.kill(pid, signal.SIGTERM)
            except (ValueError, ProcessLookupError):
                continue
            for _ in range(100):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            else:
                os.kill(pid, signal.SIGKILL)
        if CONF.exists() and MARK in CONF.read_text():
            CONF.unlink()

    def __exit__(self, *exc) -> None:
        self.stop()

    def log_tail(self, lines: int = 40) -> str:
        """The end of each daemon's log, for a failing test's message."""
        parts = []
        for log in sorted((self.state / "log").glob("*.log")):
            text = log.read_text(errors="replace").splitlines()[-lines:]
            parts.append(f"--- {log.name}\n" + "\n".join(text))
        return "\n".join(parts)
