export { SqlConsole } from "@/features/sql-console/components/sql-console";
