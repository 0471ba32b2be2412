import type { QueryClient } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactElement } from "react";

import { AppProvider, createQueryClient } from "@/app/provider";
import { createI18n, type Language } from "@/lib/i18n";

export function renderWithProviders(
  ui: ReactElement,
  { language = "en", queryClient = createQueryClient() }: { language?: Language; queryClient?: QueryClient } = {},
) {
  const i18n = createI18n(language);
  return {
    i18n,
    queryClient,
    ...render(
      <AppProvider i18n={i18n} queryClient={queryClient}>
        {ui}
      </AppProvider>,
    ),
  };
}
