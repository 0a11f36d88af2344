"""The GIL is released while a command runs: another Python thread runs during the call.

Deterministic, without timing: a worker thread runs extract() on a FIFO whose only writer is this thread. The dump
reader opens the FIFO and reads until end of file, which comes only when this thread closes its end -- which it can
do only if it gets the GIL while the worker is inside the call. Held, the two wait on each other for ever: the check
runs in a child interpreter with a timeout, so a held GIL fails the test instead of hanging it.
"""

from conftest import MODULE, run_python

CHILD = r'''
import os, shutil, tempfile, threading
import tenet_cost

folder = tempfile.mkdtemp()
fifo = os.path.join(folder, "module.py")
os.mkfifo(fifo)
fd = os.open(fifo, os.O_RDWR)  # on Linux a FIFO opened read-write has a writer at once, without a reader
os.write(fd, MODULE.encode())   # waits in the pipe while this end is open
result = {}

def work():
    result["workloads"] = tenet_cost.extract(fifo)["workloads"]

worker = threading.Thread(target=work)
worker.start()
# the worker's open of the FIFO shows as a second descriptor on it; then end of file is ours to give
def ends():
    n = 0
    for f in os.listdir("/proc/self/fd"):
        try:
            n += os.readlink("/proc/self/fd/" + f) == fifo
        except OSError:
            pass
    return n
while ends() < 2 and worker.is_alive():
    pass  # spins in Python: runs only while the worker's call has let go of the GIL
os.close(fd)
worker.join()
shutil.rmtree(folder)
print(result["workloads"][0]["m"], result["workloads"][0]["k"])
'''


def test_gil_is_released_during_a_call():
    code, out, err = run_python(f"MODULE = {MODULE!r}\n" + CHILD, timeout=120)
    assert code == 0, err
    assert out.split() == ["64", "128"]
