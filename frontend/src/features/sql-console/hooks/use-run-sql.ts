import { useMutation } from "@tanstack/react-query";

import { runSql } from "@/features/sql-console/api/run-sql";

export function useRunSql() {
  return useMutation({ mutationFn: runSql });
}
