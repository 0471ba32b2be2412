export type { Me } from "@/features/auth/api/session";
export { LoginPage } from "@/features/auth/components/login-page";
export { UserMenu } from "@/features/auth/components/user-menu";
export { useMe } from "@/features/auth/hooks/use-session";
