"""The embedded store killed mid-write (SIGKILL, no chance to flush or unlock) and reopened: every insert
it had finished is there, the one it was writing is there whole or not at all, the demo tables it held
are untouched, and the next process takes the directory without a manual step.

Each side runs in a child process: chdb opens one data directory per process, and this test process
already holds its own.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BATCH = 20_000
WRITER = """
import sys
import pyarrow as pa
from backend.domain.market.config import StoreConfig
from backend.domain.market.store import MarketStore

store = MarketStore(StoreConfig(url=sys.argv[1]))
store.admin_command("CREATE DATABASE IF NOT EXISTS market")
store.admin_command(
    "CREATE TABLE IF NOT EXISTS market.crash_probe (batch UInt32, n UInt32, payload String) "
    "ENGINE = MergeTree ORDER BY (batch, n)"
)
store.admin_command(
    "CREATE TABLE IF NOT EXISTS market.kept (n UInt32) ENGINE = MergeTree ORDER BY n"
)
store.admin_command("INSERT INTO market.kept SELECT number FROM numbers(1000)")
print("ready", flush=True)
batch = 0
while True:
    rows = pa.table({
        "batch": pa.array([batch] * BATCH, pa.uint32()),
        "n": pa.array(range(BATCH), pa.uint32()),
        "payload": pa.array(["x" * 64] * BATCH),
    })
    store.insert_arrow("crash_probe", rows)
    print(f"committed {batch}", flush=True)
    batch += 1
""".replace("BATCH", str(BATCH))
READER = """
import json, sys
from backend.domain.market.config import StoreConfig
from backend.domain.market.store import MarketStore

store = MarketStore(StoreConfig(url=sys.argv[1]))
def one(sql):
    return store.internal_query(sql).rows
print(json.dumps({
    "batches": one("SELECT batch, count() FROM market.crash_probe GROUP BY batch ORDER BY batch"),
    "kept": one("SELECT count(), sum(n) FROM market.kept")[0],
}))
"""


def _child(code: str, url: str, **popen: object) -> subprocess.Popen[str]:
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-c", code, url],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        text=True,
        **popen,
    )


def test_a_store_killed_while_inserting_reopens_with_every_finished_insert(tmp_path: Path) -> None:
    url = f"chdb://{tmp_path / 'chdb'}"
    writer = _child(WRITER, url, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert writer.stdout is not None
    committed = -1
    deadline = time.monotonic() + 180
    for line in writer.stdout:
        if line.startswith("committed "):
            committed = int(line.split()[1])
        if committed >= 3 or time.monotonic() > deadline:
            break
    assert committed >= 3, writer.stderr.read() if writer.stderr else ""
    time.sleep(0.05)  # let it start the next insert, then kill it in the middle of the write
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL
    for line in writer.stdout.read().splitlines():  # what it finished before it died, still in the pipe
        committed = int(line.split()[1])

    reader = _child(READER, url, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = reader.communicate(timeout=180)
    assert reader.returncode == 0, err[-3000:]
    found = json.loads(out)

    batches = {batch: count for batch, count in found["batches"]}
    # Every insert reported as finished is there, whole; an insert cut by the kill is whole or absent.
    assert all(batch in batches for batch in range(committed + 1))
    assert set(batches.values()) == {BATCH}
    assert sorted(batches) == list(range(len(batches)))
    assert len(batches) - (committed + 1) <= 1
    assert found["kept"] == [1000, sum(range(1000))]
