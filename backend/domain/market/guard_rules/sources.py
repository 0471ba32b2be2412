"""Rules on what a query reads from: table functions, internal databases, identifier parameters."""

from __future__ import annotations

from sqlglot import exp

from backend.domain.market.guard_rules.names import normalise, written_name
from backend.domain.market.guard_rules.parsed import ParsedStatement

# Table functions that only generate numbers: harmless, and handy for date ranges and tests.
ALLOWED_TABLE_FUNCTIONS = ("numbers", "numbers_mt", "zeros", "zeros_mt", "generate_series", "generateSeries")
_ALLOWED = {normalise(name) for name in ALLOWED_TABLE_FUNCTIONS}

# Why the dangerous ones are refused (ClickHouse 26.9 table functions; the rest are refused as
# "not on the allowed list").
_TABLE_FUNCTION_RISKS = {
    "reads server files or the embedding process": (
        "file fileCluster filesystem input python arrowstream icebergLocal icebergLocalCluster "
        "deltaLakeLocal paimonLocal"
    ),
    "reads over the network or from object storage": (
        "url urlCluster s3 s3Cluster gcs oss cosn azureBlobStorage azureBlobStorageCluster hdfs "
        "hdfsCluster iceberg icebergS3 icebergS3Cluster icebergAzure icebergAzureCluster icebergCluster "
        "icebergHDFS icebergHDFSCluster deltaLake deltaLakeS3 deltaLakeS3Cluster deltaLakeAzure "
        "deltaLakeAzureCluster deltaLakeCluster hudi hudiCluster paimon paimonS3 paimonS3Cluster "
        "paimonAzure paimonAzureCluster paimonCluster paimonHDFS paimonHDFSCluster prometheusQuery "
        "prometheusQueryRange ytsaurus bigquery"
    ),
    "reads another database or a dictionary source": (
        "mysql postgresql mongodb redis sqlite odbc jdbc dictionary"
    ),
    "queries other servers": "remote remoteSecure cluster clusterAllReplicas",
    "runs a program": "executable eval",
    "reads tables by pattern or exposes server internals": (
        "merge loop mergeTreeIndex mergeTreeProjection mergeTreeTextIndex mergeTreeAnalyzeIndexes "
        "mergeTreeAnalyzeIndexesUUID mergeTreeCodecBlockCounts viewExplain viewIfPermitted "
        "timeSeriesData timeSeriesMetrics timeSeriesMetricFamilies timeSeriesSamples "
        "timeSeriesSelector timeSeriesTags"
    ),
}
TABLE_FUNCTION_RISK: dict[str, str] = {
    normalise(name): risk for risk, names in _TABLE_FUNCTION_RISKS.items() for name in names.split()
}

# Databases holding ClickHouse's own state (users, settings, query log, processes, …).
INTERNAL_DATABASES = {"system", "information_schema", "_temporary_and_external_tables"}


def _table_function_reason(name: str) -> str:
    risk = TABLE_FUNCTION_RISK.get(normalise(name))
    if risk:
        return f"table function {name}() is not allowed: it {risk}"
    allowed = ", ".join(f"{allowed}()" for allowed in ALLOWED_TABLE_FUNCTIONS)
    return f"table function {name}() is not allowed: only {allowed} may be used as table sources"


def _called_table_function(table: exp.Table) -> str | None:
    """The name of the table function a FROM/JOIN source calls, if it is one."""
    source = table.this
    if isinstance(source, exp.Func):
        return written_name(source)
    alias = table.args.get("alias")
    if isinstance(alias, exp.TableAlias) and alias.columns and not alias.name:
        # sqlglot reads some calls, e.g. `dictionary('d')`, as a table with a column-alias list.
        return table.name
    return None


def table_functions(statement: ParsedStatement) -> str | None:
    for table in statement.find_all(exp.Table):
        name = _called_table_function(table)
        if name is not None and normalise(name) not in _ALLOWED:
            return _table_function_reason(name)
    return None


def _qualifiers(node: exp.Expr) -> list[str]:
    if isinstance(node, exp.Table):
        return [node.catalog, node.db]
    if isinstance(node, exp.Column):  # `x IN system.users` reads a table written like a column
        return [node.catalog, node.db, node.table]
    return []


def internal_databases(statement: ParsedStatement) -> str | None:
    for node in statement.find_all(exp.Table, exp.Column):
        for qualifier in _qualifiers(node):
            if qualifier.lower() in INTERNAL_DATABASES:
                return (
                    f"reading ClickHouse's internal database {qualifier} ({node.sql('clickhouse')}) "
                    "is not allowed: screens read market data only"
                )
    return None


def identifier_parameters(statement: ParsedStatement) -> str | None:
    for placeholder in statement.find_all(exp.Placeholder):
        # sqlglot keeps ClickHouse's `{name:Identifier}` type as the plain string "Identifier".
        if str(placeholder.args.get("kind", "")).lower() == "identifier":
            return (
                f"query parameter {placeholder.sql('clickhouse')} of type Identifier is not allowed: "
                "it could name any table"
            )
        if isinstance(placeholder.parent, exp.Table):
            return f"query parameter {placeholder.sql('clickhouse')} cannot stand for a table"
    return None
