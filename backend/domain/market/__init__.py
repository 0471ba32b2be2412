"""Market-data store over ClickHouse (embedded chdb or a server), reached only through clickhouse-connect."""
