import { type ReactNode, useEffect } from "react";
import { useTranslation } from "react-i18next";
import { NavLink, Outlet } from "react-router";

import { ErrorNotice } from "@/components/error-notice";
import { LoginPage, UserMenu, useMe } from "@/features/auth";
import { SyntheticBanner } from "@/features/market";
import { type Language, rememberLanguage } from "@/lib/i18n";

function LanguageToggle() {
  const { t, i18n } = useTranslation();
  const next: Language = i18n.language === "zh" ? "en" : "zh";
  return (
    <button
      type="button"
      className="ghost"
      aria-label={t("app.language")}
      data-testid="language-toggle"
      onClick={() => {
        rememberLanguage(next);
        void i18n.changeLanguage(next);
      }}
    >
      {t("app.switchTo")}
    </button>
  );
}

/** Every page needs a signed-in user: without one the login form stands in for the page. */
function Signed() {
  const { t } = useTranslation();
  const me = useMe();
  if (me.isPending) return <p className="muted">{t("common.loading")}</p>;
  if (me.error) return <ErrorNotice error={me.error} />;
  return me.data ? <Outlet /> : <LoginPage />;
}

/** Pages for admins only (the API refuses analysts too; this keeps them from a page of errors). */
export function AdminOnly({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const me = useMe();
  return me.data?.role === "admin" ? children : <p className="notice notice-warn">{t("auth.adminsOnly")}</p>;
}

export function Layout() {
  const { t, i18n } = useTranslation();
  const me = useMe();
  useEffect(() => {
    document.documentElement.lang = i18n.language === "zh" ? "zh-CN" : "en";
  }, [i18n.language]);
  const tabClass = ({ isActive }: { isActive: boolean }) => (isActive ? "tab active" : "tab");
  return (
    <div className="app">
      <header className="topbar">
        <div className="brand">
          <span className="logo">VeriScreen</span>
          <span className="tagline">{t("app.tagline")}</span>
        </div>
        {me.data && (
          <nav className="tabs">
            <NavLink to="/" end className={tabClass}>
              {t("nav.ask")}
            </NavLink>
            <NavLink to="/screens" className={tabClass}>
              {t("nav.screens")}
            </NavLink>
            <NavLink to="/history" className={tabClass}>
              {t("nav.history")}
            </NavLink>
            {me.data.role === "admin" && (
              <NavLink to="/paradigms" className={tabClass}>
                {t("nav.paradigms")}
              </NavLink>
            )}
            <NavLink to="/console" className={tabClass}>
              {t("nav.console")}
            </NavLink>
            <NavLink to="/market" className={tabClass}>
              {t("nav.market")}
            </NavLink>
          </nav>
        )}
        <div className="tools">
          <a href="/api/docs/" className="small">
            {t("app.apiDocs")}
          </a>
          {me.data && <UserMenu me={me.data} />}
          <LanguageToggle />
        </div>
      </header>
      <SyntheticBanner />
      <main className="content">
        <Signed />
      </main>
    </div>
  );
}
