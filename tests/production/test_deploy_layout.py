"""deploy/ cannot be started here (no Docker), so everything that can be checked statically is:
the compose file, the ClickHouse XML configs, the generated cluster DDL and the environment file."""

from __future__ import annotations

import ast
import importlib.util
import re
import xml.etree.ElementTree as ElementTree
from typing import Any

import pytest
import sqlglot
import yaml
from sqlglot import exp

from backend.domain.market.schema import TABLES, schema_statements
from backend.domain.market.store import MarketStore
from tests.production.services import ROOT

DEPLOY = ROOT / "deploy"
CLICKHOUSE = DEPLOY / "clickhouse"
CLICKHOUSE_NODES = {"ch-s1-r1": "01", "ch-s1-r2": "01", "ch-s2-r1": "02", "ch-s2-r2": "02"}
KEEPERS = {"keeper-1": "1", "keeper-2": "2", "keeper-3": "3"}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))


def _xml(relative: str) -> ElementTree.Element:
    return ElementTree.parse(CLICKHOUSE / relative).getroot()


def _mounted_files(service: dict[str, Any]) -> set[str]:
    return {volume.split(":")[0] for volume in service.get("volumes", []) if volume.startswith("./")}


def test_compose_runs_web_worker_and_their_services(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) >= {
        "web",
        "worker",
        "postgres",
        "redis",
        "nginx",
        "migrate",
        *CLICKHOUSE_NODES,
        *KEEPERS,
    }
    assert services["web"]["command"][0] == "daphne"
    assert services["worker"]["command"][:3] == ["celery", "-A", "backend.project"]
    for name in ("web", "worker"):
        environment = services[name]["environment"]
        assert environment["CLICKHOUSE_URL"].startswith("clickhouse://veriscreen_app:")
        assert environment["REDIS_URL"].startswith("redis://redis:")
        assert environment["DATABASE_URL"].startswith("postgres://")
        assert environment["CLICKHOUSE_CLUSTER"] == "veriscreen"
    assert services["migrate"]["environment"]["CLICKHOUSE_URL"].startswith("clickhouse://veriscreen_loader:")
    # The daily sync: one beat, one worker on the market_sync queue writing as the loader user.
    assert services["beat"]["command"][:4] == ["celery", "-A", "backend.project", "beat"]
    sync = services["sync-worker"]
    assert sync["command"][sync["command"].index("-Q") + 1] == "market_sync"
    assert sync["environment"]["CLICKHOUSE_URL"].startswith("clickhouse://veriscreen_loader:")
    assert "-Q" not in services["worker"]["command"]
    assert services["llm"]["profiles"] == ["llm"]  # optional model server, started only on request
    for service in services.values():
        for path in _mounted_files(service):
            assert (DEPLOY / path).exists(), f"compose mounts missing file {path}"


def test_each_clickhouse_node_has_its_own_identity(compose: dict[str, Any]) -> None:
    services = compose["services"]
    identities = set()
    for node, shard in CLICKHOUSE_NODES.items():
        environment = services[node]["environment"]
        assert environment["CLICKHOUSE_SHARD"] == shard
        assert environment["CLICKHOUSE_HOSTNAME"] == node
        identities.add((environment["CLICKHOUSE_SHARD"], environment["CLICKHOUSE_REPLICA"]))
        assert any(volume.endswith(":/var/lib/clickhouse") for volume in services[node]["volumes"])
    assert len(identities) == 4
    assert {services[keeper]["environment"]["KEEPER_SERVER_ID"] for keeper in KEEPERS} == set(
        KEEPERS.values()
    )


def test_cluster_config_matches_the_compose_services() -> None:
    cluster = _xml("config.d/cluster.xml")
    shards = cluster.findall("remote_servers/veriscreen/shard")
    assert len(shards) == 2
    layout = {
        replica.findtext("host"): f"{index:02d}"
        for index, shard in enumerate(shards, start=1)
        for replica in shard.findall("replica")
    }
    assert layout == CLICKHOUSE_NODES
    assert all(shard.findtext("internal_replication") == "true" for shard in shards)
    assert {node.findtext("host") for node in cluster.findall("zookeeper/node")} == set(KEEPERS)
    macros = _xml("config.d/macros.xml").find("macros")
    assert macros is not None
    assert macros.find("shard").get("from_env") == "CLICKHOUSE_SHARD"  # type: ignore[union-attr]
    assert macros.find("replica").get("from_env") == "CLICKHOUSE_REPLICA"  # type: ignore[union-attr]


def test_keeper_ensemble_has_three_voters() -> None:
    keeper = _xml("keeper/keeper.xml").find("keeper_server")
    assert keeper is not None
    servers = {
        (s.findtext("id"), s.findtext("hostname")) for s in keeper.findall("raft_configuration/server")
    }
    assert servers == {(server_id, host) for host, server_id in KEEPERS.items()}
    assert keeper.find("server_id").get("from_env") == "KEEPER_SERVER_ID"  # type: ignore[union-attr]


def test_app_user_is_read_only_with_throwing_limits() -> None:
    users = _xml("users.d/veriscreen.xml")
    reader = users.find("profiles/veriscreen_reader")
    assert reader is not None
    assert reader.findtext("readonly") == "1"
    assert reader.findtext("timeout_overflow_mode") == "throw"
    assert reader.findtext("result_overflow_mode") == "throw"
    for limit in ("max_execution_time", "max_result_rows", "max_memory_usage"):
        assert int(reader.findtext(limit) or 0) > 0
        assert reader.find(f"constraints/{limit}/max") is not None
    app = users.find("users/veriscreen_app")
    assert app is not None and app.findtext("profile") == "veriscreen_reader"
    grants = [query.text or "" for query in app.findall("grants/query")]
    assert grants and all(re.fullmatch(r"GRANT SELECT ON market(_local)?\.\*", grant) for grant in grants)
    assert users.find("users/default").get("remove") == "remove"  # type: ignore[union-attr]


def _render_module() -> Any:
    spec = importlib.util.spec_from_file_location("render_schema", CLICKHOUSE / "render_schema.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cluster_ddl_file_is_generated_from_the_canonical_schema() -> None:
    written = (CLICKHOUSE / "schema" / "cluster.sql").read_text(encoding="utf-8")
    assert written == _render_module().render(), "run deploy/clickhouse/render_schema.py"


def test_cluster_ddl_replicates_and_distributes_every_table() -> None:
    statements = schema_statements("market", "veriscreen")
    trees = [sqlglot.parse_one(statement, read="clickhouse") for statement in statements]
    assert all(isinstance(tree, exp.Create) for tree in trees)
    assert all(" ON CLUSTER veriscreen" in statement for statement in statements)
    local = [s for s in statements if s.startswith("CREATE TABLE IF NOT EXISTS market_local.")]
    distributed = [s for s in statements if s.startswith("CREATE TABLE IF NOT EXISTS market.")]
    assert len(local) == len(distributed) == len(TABLES)
    assert all("ReplicatedMergeTree('/clickhouse/tables/{shard}/market_local/" in s for s in local)
    for table, statement in zip(TABLES, distributed, strict=True):
        assert f"ENGINE = Distributed(veriscreen, market_local, {table.name}, " in statement


def test_clickhouse_itself_parses_the_cluster_ddl(demo_store: MarketStore) -> None:
    """formatQuery() runs ClickHouse's own parser (chdb 26.9) without executing anything."""
    for statement in schema_statements("market", "veriscreen"):
        formatted = demo_store.query("SELECT formatQuery({ddl:String})", {"ddl": statement}).rows[0][0]
        assert "ON CLUSTER veriscreen" in formatted


def _variables_read_by_the_code() -> set[str]:
    names = set()
    for path in [
        ROOT / "backend" / "project" / "settings.py",
        *sorted((ROOT / "backend" / "apps").rglob("*.py")),
    ]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            first = node.args[0]
            func = node.func
            is_env_read = isinstance(func, ast.Attribute) and (
                (isinstance(func.value, ast.Name) and func.value.id == "env")
                or (
                    func.attr == "get"
                    and isinstance(func.value, ast.Attribute)
                    and func.value.attr == "environ"
                )
            )
            if is_env_read and isinstance(first, ast.Constant) and isinstance(first.value, str):
                names.add(first.value)
    return names


def test_env_example_documents_every_variable_the_settings_read() -> None:
    documented = set(
        re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", (DEPLOY / ".env.example").read_text(), re.MULTILINE)
    )
    read = _variables_read_by_the_code()
    assert read >= {"CLICKHOUSE_URL", "DATABASE_URL", "REDIS_URL", "QUERY_MAX_RESULT_ROWS"}
    assert read - documented == set()
    llm_keys = {"LLM_PROVIDER", "LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY", "LLM_STRUCTURED_OUTPUT"}
    assert llm_keys <= documented


def _cluster_sql_statements() -> list[str]:
    """The statements of the committed cluster.sql itself (comment lines dropped, split at `;` line ends)."""
    text = (CLICKHOUSE / "schema" / "cluster.sql").read_text(encoding="utf-8")
    body = "\n".join(line for line in text.splitlines() if not line.startswith("--"))
    return [statement.strip() for statement in re.split(r";\s*\n", body) if statement.strip()]


def test_the_cluster_sql_file_is_clickhouse_ddl_with_replicated_and_distributed_engines(
    empty_store: MarketStore,
) -> None:
    """Each statement of the file parses with sqlglot's ClickHouse dialect and with ClickHouse's own
    parser (EXPLAIN AST on chdb: parsed, not executed, so no cluster is needed)."""
    statements = _cluster_sql_statements()
    assert len(statements) == 2 + 2 * len(TABLES)
    engines: dict[str, str] = {}
    client = empty_store.scratch_client()  # EXPLAIN is not a read the guard lets through
    try:
        for statement in statements:
            tree = sqlglot.parse_one(statement, read="clickhouse")
            assert isinstance(tree, exp.Create) and " ON CLUSTER veriscreen" in statement
            ast_lines = [row[0] for row in client.query(f"EXPLAIN AST {statement}").result_rows]
            assert ast_lines[0].startswith("CreateQuery")
            if tree.kind == "TABLE":
                engine = next(line.split()[1] for line in ast_lines if line.startswith("  Function "))
                created = tree.find(exp.Table)
                assert created is not None
                engines[f"{created.db}.{created.name}"] = engine
    finally:
        empty_store.close_scratch_client(client)
    for table in TABLES:
        assert engines[f"market_local.{table.name}"] == "ReplicatedMergeTree"
        assert engines[f"market.{table.name}"] == "Distributed"
