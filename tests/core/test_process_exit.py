"""A gloo process group is destroyed at exit (food_tasks.lmms.harness.install_exit).

lmms-eval 0.7.x ends each rank of ``accelerate launch --multi_gpu`` with a barrier and returns without
``destroy_process_group``; on CPU (gloo) a rank then aborts now and then while the interpreter shuts down
("terminate called without an active exception", SIGABRT), and the launcher fails the whole run (it failed CI once,
in tests/serving/test_serving_processes.py). A two-rank gloo script that gathers objects and exits without destroying
its group aborted in 1 of 110 launches on a 2-core machine, and in none of 51 with the handler; too rare for a test to
catch, so this tests what the handler does.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from food_tasks.lmms import harness

CHILD = """
import atexit, os, sys
import torch.distributed as dist

# Registered first, so it runs last (atexit is last in, first out): after food-tasks' handler.
atexit.register(lambda: print("initialized at exit:", dist.is_initialized(), flush=True))
# A file store: no TCP port to find, nothing but this process.
backend = None if sys.argv[1] == "None" else sys.argv[1]
dist.init_process_group(backend, init_method="file://" + sys.argv[2], rank=0, world_size=1)
from food_tasks.lmms import harness
before = atexit._ncallbacks()
harness.install_exit()
harness.install_exit()
print("handlers added:", atexit._ncallbacks() - before, flush=True)
"""


def test_nothing_to_destroy_without_a_process_group():
    assert harness.destroy_gloo_group() is False


@pytest.mark.slow  # fresh interpreters that import torch
def test_a_gloo_group_is_destroyed_at_exit_by_one_handler(tmp_path):
    """Accelerate's CPU launch names no backend (``get_backend()`` then says "undefined", its configuration
    "cpu:gloo"); named ones too. The three interpreters start together (each is a torch import)."""
    backends = ("None", "gloo", "cpu:gloo")
    procs = []
    for i, backend in enumerate(backends):
        cmd = [sys.executable, "-c", CHILD, backend, str(tmp_path / f"store{i}")]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    for backend, proc in zip(backends, procs):
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, (backend, err[-2000:])
        assert out.splitlines() == ["handlers added: 1", "initialized at exit: False"], (backend, out)


@pytest.mark.parametrize(
    ("config", "destroyed"),
    [
        ("cpu:gloo", True),
        ("gloo", True),
        ("cpu:gloo,cuda:gloo", True),
        ("cuda:nccl", False),
        ("cuda:nccl,cpu:gloo", False),
    ],
)
def test_only_a_gloo_only_group_is_destroyed(monkeypatch, config, destroyed):
    """NCCL groups (GPU runs, alone or beside gloo) are left as lmms-eval leaves them."""
    import types

    calls = []
    fake = types.SimpleNamespace(
        is_available=lambda: True,
        is_initialized=lambda: True,
        get_backend=lambda: "undefined",
        get_backend_config=lambda: config,
        destroy_process_group=lambda: calls.append(1),
    )
    monkeypatch.setitem(sys.modules, "torch.distributed", fake)
    assert harness.destroy_gloo_group() is destroyed and len(calls) == int(destroyed)


def test_install_registers_the_exit_handler():
    from food_tasks import registration

    assert harness.install(str(registration.task_dir()), registration.our_names)
    assert harness._EXIT_INSTALLED
