import { type QueryClient, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import { getMe, login, logout, meKey } from "@/features/auth/api/session";
import { ApiError } from "@/lib/api-client";

/** The signed-in user; `null` when nobody is (401/403), an error for anything else. */
export function useMe() {
  return useQuery({
    queryKey: meKey,
    queryFn: async () => {
      try {
        return await getMe();
      } catch (error) {
        if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return null;
        throw error;
      }
    },
    staleTime: 5 * 60_000,
  });
}

/** Nothing cached for one user survives a change of user (the session query itself is kept: the
 * layout observes it). */
function forgetOtherUsersData(queryClient: QueryClient) {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== meKey[0] });
}

export function useLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: login,
    onSuccess: (me) => {
      forgetOtherUsersData(queryClient);
      queryClient.setQueryData(meKey, me);
    },
  });
}

export function useLogout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: logout,
    onSuccess: () => {
      forgetOtherUsersData(queryClient);
      queryClient.setQueryData(meKey, null);
    },
  });
}
