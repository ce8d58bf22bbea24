"""`make lab` works: JupyterLab starts headless on the student notebooks and serves them.

The server runs on 127.0.0.1 with a random token, in a temp copy of notebooks/ (autosave
cannot write into the repo) and with every Jupyter config/runtime/settings dir in tmp, so
the test neither reads nor changes the user's Jupyter setup. HTTP uses only urllib.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
JUPYTER = ROOT / ".venv" / "bin" / "jupyter"
STARTUP_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Lab:
    """A running JupyterLab: its base URL, token, served folder and process."""

    url: str
    token: str
    root: Path
    process: subprocess.Popen[bytes]

    def get(self, path: str, timeout: float = 10.0) -> tuple[int, str]:
        """GET ``path`` (token in the header); return (status, body text)."""
        request = urllib.request.Request(
            self.url + path, headers={"Authorization": f"token {self.token}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, response.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode("utf-8", errors="replace")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (small race accepted: the OS rarely reuses it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def student_notebooks() -> list[str]:
    return sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))


def _wait_until_up(lab: Lab, log: Path) -> None:
    """Poll /api/status and /lab until both answer 200; fail with the server log if not."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    last = "no answer yet"
    while time.monotonic() < deadline:
        if lab.process.poll() is not None:
            pytest.fail(f"jupyter lab exited with {lab.process.returncode}:\n{log.read_text()}")
        try:
            status, _ = lab.get("/api/status", timeout=2)
            page, _ = lab.get(f"/lab?token={lab.token}", timeout=5)
            if status == page == 200:
                return
            last = f"/api/status {status}, /lab {page}"
        except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
            last = repr(error)
        time.sleep(0.5)
    pytest.fail(f"jupyter lab not up after {STARTUP_TIMEOUT_S:.0f} s ({last}):\n"
                f"{log.read_text()[-3000:]}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate our server (only this PID); kill it if it ignores SIGTERM."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    if not JUPYTER.exists():
        pytest.fail(f"{JUPYTER} missing: run `make install` first")
    base = tmp_path_factory.mktemp("lab")
    served = base / "notebooks"
    served.mkdir()
    for name in student_notebooks():
        shutil.copy2(ROOT / "notebooks" / name, served / name)
    env = dict(os.environ)
    for var, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                     ("JUPYTERLAB_SETTINGS_DIR", "settings"),
                     ("JUPYTERLAB_WORKSPACES_DIR", "workspaces")):
        (base / sub).mkdir()
        env[var] = str(base / sub)
    port, token = free_port(), secrets.token_hex(16)
    log = base / "server.log"
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            [str(JUPYTER), "lab", "--no-browser", "--ip", "127.0.0.1", "--port", str(port),
             "--allow-root", f"--ServerApp.token={token}", "--ServerApp.port_retries=0",
             # No announcement/update fetches: CI machines have no general internet.
             "--LabApp.news_url=",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
            cwd=served, env=env, stdout=log_file, stderr=subprocess.STDOUT,
        )
    running = Lab(url=f"http://127.0.0.1:{port}", token=token, root=served, process=process)
    try:
        _wait_until_up(running, log)
        yield running
    finally:
        _stop(process)


def test_lab_page_and_status_load(lab: Lab) -> None:
    status, body = lab.get(f"/lab?token={lab.token}")
    assert status == 200
    assert "<title>JupyterLab</title>" in body
    assert 'id="jupyter-config-data"' in body
    status, body = lab.get("/api/status")
    assert status == 200 and "started" in json.loads(body)


def test_lab_rejects_requests_without_the_token(lab: Lab) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(lab.url + "/api/contents", timeout=10)
    assert caught.value.code == 403


def test_contents_lists_the_student_notebooks(lab: Lab) -> None:
    status, body = lab.get("/api/contents")
    assert status == 200
    listed = sorted(item["name"] for item in json.loads(body)["content"]
                    if item["type"] == "notebook")
    assert listed == student_notebooks()
    if not listed:
        pytest.skip("notebooks/ has no notebooks yet (run `make student`); listing checked empty")
    status, body = lab.get(f"/api/contents/{listed[0]}")
    assert status == 200
    model = json.loads(body)
    assert model["type"] == "notebook" and model["content"]["cells"]


def make_dry_run(*args: str) -> str:
    done = subprocess.run(["make", "-n", "lab", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_lab_runs_jupyter_lab_on_notebooks() -> None:
    lines = [line for line in make_dry_run().splitlines() if "jupyter lab" in line]
    assert lines == [lines[0]] and ".venv/bin/jupyter lab notebooks/" in lines[0]
    assert ("--allow-root" in lines[0]) == (os.getuid() == 0)


def test_make_lab_passes_lab_args() -> None:
    out = make_dry_run("LAB_ARGS=--no-browser --ip 127.0.0.1 --port 8899")
    assert ".venv/bin/jupyter lab notebooks/" in out
    assert "--no-browser --ip 127.0.0.1 --port 8899" in out
