import { useTranslation } from "react-i18next";

import { useMarketStats } from "@/features/market/hooks/use-market-stats";

/** Shown on every page while synthetic data is loaded: a generated market must never pass for a real one. */
export function SyntheticBanner() {
  const { t } = useTranslation();
  const { data } = useMarketStats();
  if (!data?.synthetic) return null;
  return (
    <div className="banner-synthetic" role="status" data-testid="synthetic-banner">
      {t("market.synthetic")}
    </div>
  );
}
