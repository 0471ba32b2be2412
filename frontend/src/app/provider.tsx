import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { i18n as I18n } from "i18next";
import { type ReactNode, useState } from "react";
import { I18nextProvider } from "react-i18next";

import { createI18n } from "@/lib/i18n";

export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: 1, refetchOnWindowFocus: false },
      mutations: { retry: false }, // never re-run a question or a statement behind the user's back
    },
  });
}

interface AppProviderProps {
  children: ReactNode;
  queryClient?: QueryClient;
  i18n?: I18n;
}

export function AppProvider({ children, queryClient, i18n }: AppProviderProps) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  const [translations] = useState(() => i18n ?? createI18n());
  return (
    <I18nextProvider i18n={translations}>
      <QueryClientProvider client={client}>{children}</QueryClientProvider>
    </I18nextProvider>
  );
}
