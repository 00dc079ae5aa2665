"""A gloo process group is destroyed at exit (food_tasks.harness.install_exit).

lmms-eval 0.7.x ends each rank of ``accelerate launch --multi_gpu`` with a barrier and returns without
``destroy_process_group``; on CPU (gloo) a rank then aborts now and then while the interpreter shuts down
("terminate called without an active exception", SIGABRT), and the launcher fails the whole run (it failed CI once,
in tests/serving/test_serving_processes.py). A two-rank gloo script that gathers objects and exits without destroying
its group aborted in 1 of 110 launches on a 2-core machine, and in none of 51 with the handler; too rare for a test to
catch, so this tests what the handler does.
"""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from food_tasks import harness

CHILD = """
import atexit, os, sys
import torch.distributed as dist

# Registered first, so it runs last (atexit is last in, first out): after food-tasks' handler.
atexit.register(lambda: print("initialized at exit:", dist.is_initialized(), flush=True))
dist.init_process_group("gloo", rank=0, world_size=1)
from food_tasks import harness
before = atexit._ncallbacks()
harness.install_exit()
harness.install_exit()
print("handlers added:", atexit._ncallbacks() - before, flush=True)
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_nothing_to_destroy_without_a_process_group():
    assert harness.destroy_gloo_group() is False


@pytest.mark.slow  # a fresh interpreter that imports torch
def test_a_gloo_group_is_destroyed_at_exit_by_one_handler():
    import os

    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()))
    proc = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == ["handlers added: 1", "initialized at exit: False"], proc.stdout


def test_install_registers_the_exit_handler():
    from food_tasks import registration

    assert harness.install(str(registration.task_dir()), registration.our_names)
    assert harness._EXIT_INSTALLED
