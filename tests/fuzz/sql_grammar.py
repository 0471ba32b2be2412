"""SQL-like strings from fragments: reads the guard must accept, attacks it must refuse, and mixtures.

Every attack is built so that it is active (outside strings and comments); every safe query hides
the same words inside strings and comments, where they are harmless and must not cause a refusal.
"""

from __future__ import annotations

from random import Random

from hypothesis import strategies as st

from backend.domain.market.schema import TABLES

MARKET_TABLES = {table.name: table.column_names for table in TABLES}
TABLE_NAMES = sorted(MARKET_TABLES)
NUMBER_SOURCES = ("numbers(10)", "numbers_mt(5)", "zeros(3)", "generate_series(1, 5)")

# Harmless inside a string literal or a comment; each one is an attack outside of them.
DECOYS = (
    "; DROP TABLE market.daily; --",
    "INTO OUTFILE '/tmp/x'",
    "SETTINGS readonly = 0",
    "FROM system.users",
    "file('/etc/passwd')",
    "*/ DROP TABLE market.daily /*",
    "WITH w AS (INSERT INTO market.daily SELECT 1) SELECT 1",
    "贵州茅台",
    "O'Brien",
)

WRITE_STATEMENTS = (
    "DROP TABLE market.daily",
    "DROP DATABASE market",
    "TRUNCATE TABLE market.daily",
    "INSERT INTO market.daily SELECT * FROM market.daily",
    "INSERT INTO market.daily (ts_code) VALUES ('x')",
    "ALTER TABLE market.daily DELETE WHERE 1",
    "ALTER TABLE market.daily UPDATE close = 0 WHERE 1",
    "DELETE FROM market.daily WHERE 1",
    "CREATE TABLE market.x (a Int8) ENGINE = Memory",
    "CREATE USER mallory IDENTIFIED BY 'x'",
    "GRANT ALL ON *.* TO default",
    "SET readonly = 0",
    "SYSTEM SHUTDOWN",
    "SYSTEM DROP DNS CACHE",
    "KILL QUERY WHERE 1",
    "OPTIMIZE TABLE market.daily FINAL",
    "RENAME TABLE market.daily TO market.gone",
    "EXCHANGE TABLES market.daily AND market.income",
    "ATTACH TABLE market.daily",
    "DETACH TABLE market.daily",
    "USE system",
    "SHOW GRANTS",
    "EXPLAIN SELECT 1",
    "DESCRIBE TABLE market.daily",
    "WITH x AS (SELECT 1) INSERT INTO market.daily SELECT * FROM x",
    "BACKUP TABLE market.daily TO Disk('backups', 'x')",
)
CLAUSE_SUFFIXES = (
    " SETTINGS readonly = 0",
    " SETTINGS max_result_rows = 0, max_execution_time = 0",
    " INTO OUTFILE '/tmp/out.csv'",
    " INTO OUTFILE 'x' FORMAT CSV",
    " FORMAT JSONEachRow",
    " FORMAT Native",
)
HOSTILE_SOURCES = (
    "system.users",
    "system.tables",
    "system.processes",
    "SyStEm.settings",
    "`system`.`users`",
    "system . users",
    "INFORMATION_SCHEMA.TABLES",
    "information_schema.columns",
    "file('/etc/passwd', 'LineAsString')",
    "url('http://10.0.0.1/x.csv', CSV)",
    "remote('127.0.0.1', system.users)",
    "remoteSecure('10.0.0.1:9440', market.daily)",
    "s3('http://bucket.example/x.csv', CSV)",
    "mysql('10.0.0.1:3306', 'db', 't', 'u', 'p')",
    "postgresql('10.0.0.1:5432', 'db', 't', 'u', 'p')",
    "executable('cat /etc/passwd', TSV, 'line String')",
    "merge('system', '.*')",
    "cluster('default', system.one)",
    "input('x String')",
    "hdfs('hdfs://x/y', CSV)",
    "dictionary('secrets')",
    "jdbc('jdbc:mysql://x', 't')",
    "FILE('/etc/passwd')",
)
HOSTILE_EXPRESSIONS = (
    "file('/etc/passwd')",
    "FILE('/etc/shadow')",
    "currentUser()",
    "current_user()",
    "hostName()",
    "version()",
    "getSetting('readonly')",
    "getMacro('shard')",
    "dictGet('secrets', 'v', toUInt64(1))",
    "dictGetOrDefault('d', 'v', 1, 0)",
    "sleep(3)",
    "sleepEachRow(1)",
    "joinGet('j', 'v', 1)",
    "uptime()",
    "arrayMap(x -> file(x), ['/etc/passwd'])",
    "(SELECT name FROM system.users LIMIT 1)",
    "(SELECT count() FROM url('http://10.0.0.1/', CSV))",
    "ts_code IN (SELECT name FROM system.tables)",
)
INVISIBLE = ("\u200b", "\u202e", "\ufeff", "\x00", "\u2028", "\x1b", "\u2066", "\x7f")
SEPARATORS = (" ", "\n", "\t", " /* c */ ", " -- c\n", "\n\n")


def build_read(rng: Random) -> str:
    """A single read of market tables, with decoys inside strings and comments."""
    table = rng.choice(TABLE_NAMES)
    columns = MARKET_TABLES[table]
    source = rng.choice([f"market.{table}", table, f"market.{table} AS t"])
    picked = rng.sample(columns, rng.randint(1, min(3, len(columns))))
    first = picked[0]
    select = rng.choice([", ".join(picked), "*", "count()", f"max({first})", f"{first} AS x"])
    sql = f"SELECT {select} FROM {source}"
    if rng.random() < 0.5:
        decoy = rng.choice(DECOYS).replace("'", "''")
        sql += f" WHERE {first} != '{decoy}'"
    if rng.random() < 0.5:
        # ClickHouse nests block comments: a decoy's own /* or */ would open or close one.
        sql += f" /* {rng.choice(DECOYS).replace('*/', '').replace('/*', '')} */"
    if rng.random() < 0.5:
        sql += f" ORDER BY {first} DESC LIMIT {rng.randint(1, 1000)}"
    shape = rng.choice(["plain", "cte", "subquery", "union", "numbers", "comment", "semicolon"])
    if shape == "cte":
        sql = f"WITH q AS ({sql}) SELECT * FROM q"
    elif shape == "subquery":
        sql = f"SELECT * FROM ({sql}) AS s"
    elif shape == "union":
        sql = f"{sql} UNION ALL {sql}"
    elif shape == "numbers":
        sql = f"SELECT number FROM {rng.choice(NUMBER_SOURCES)} WHERE number IN (SELECT 1 FROM ({sql}))"
    elif shape == "comment":
        sql = f"-- {rng.choice(DECOYS)}\n{sql}"
    elif shape == "semicolon":
        sql = f"{sql};"
    return sql


def build_attack(rng: Random) -> str:
    """A query that is not a single read of allowed tables, however it is dressed."""
    base = build_read(rng)
    kind = rng.randint(0, 7)
    separator = rng.choice(SEPARATORS)
    if kind == 0:  # a second statement after the read
        joint = rng.choice([";", "; ", ";\n-- c\n", " /* x */;", ";;"])
        return f"{base.rstrip(';')}{joint}{separator}{rng.choice(WRITE_STATEMENTS)}"
    if kind == 1:  # a write first, the read after
        return f"{rng.choice(WRITE_STATEMENTS)};{separator}{base}"
    if kind == 2:  # a write alone, maybe behind a comment
        return rng.choice(["", "/* hi */ ", "-- x\n"]) + rng.choice(WRITE_STATEMENTS)
    if kind == 3:  # a clause that belongs to VeriScreen
        return base.rstrip(";") + rng.choice(CLAUSE_SUFFIXES)
    if kind == 4:  # a forbidden source
        return f"SELECT *{separator}FROM {rng.choice(HOSTILE_SOURCES)}"
    if kind == 5:  # a forbidden expression inside an otherwise ordinary read
        table = rng.choice(TABLE_NAMES)
        return f"SELECT {rng.choice(HOSTILE_EXPRESSIONS)} AS v FROM market.{table}{separator}LIMIT 1"
    if kind == 6:  # an invisible character anywhere
        position = rng.randint(0, len(base))
        return base[:position] + rng.choice(INVISIBLE) + base[position:]
    # a lookalike keyword (Cyrillic Ѕ, fullwidth letters) in place of SELECT
    return rng.choice(["ЅELECT", "ＳＥＬＥＣＴ", "SEL\u0435CT"]) + base.removeprefix("SELECT")


LOOSE_PIECES = (
    WRITE_STATEMENTS
    + CLAUSE_SUFFIXES
    + HOSTILE_EXPRESSIONS
    + DECOYS
    + INVISIBLE
    + SEPARATORS
    + ("SELECT", "WITH", "FROM", "(", ")", ",", ";", "'", '"', "`", "/*", "*/", "--", "#")
)


def build_mixture(rng: Random) -> str:
    """Fragments of both kinds glued by separators and semicolons: no promise either way."""
    builders = (build_read, build_attack, lambda r: r.choice(LOOSE_PIECES), lambda r: r.choice(LOOSE_PIECES))
    return " ".join(rng.choice(builders)(rng) for _ in range(rng.randint(1, 6)))


# Strategies draw one seed and build from it: one draw per example instead of a dozen keeps 10,000
# examples cheap (hypothesis still shrinks the seed and replays a failure from it).
_SEEDS = st.integers(0, 2**32 - 1)


def safe_query() -> st.SearchStrategy[str]:
    return _SEEDS.map(lambda seed: build_read(Random(seed)))


def attack() -> st.SearchStrategy[str]:
    return _SEEDS.map(lambda seed: build_attack(Random(seed)))


def mixture() -> st.SearchStrategy[str]:
    return _SEEDS.map(lambda seed: build_mixture(Random(seed)))
