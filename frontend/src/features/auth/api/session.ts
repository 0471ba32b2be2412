import { apiClient, type Schemas } from "@/lib/api-client";

export type Me = Schemas["Me"];

export const meKey = ["auth", "me"] as const;

export function getMe(): Promise<Me> {
  return apiClient.get<Me>("/api/auth/me/");
}

/** The session login needs the CSRF cookie first (the server sets it on this request). */
export async function login(credentials: Schemas["Credentials"]): Promise<Me> {
  await apiClient.get<undefined>("/api/auth/csrf/");
  return apiClient.post<Me>("/api/auth/login/", credentials);
}

export function logout(): Promise<undefined> {
  return apiClient.post<undefined>("/api/auth/logout/", {});
}
