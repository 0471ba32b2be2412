import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";

import { ErrorNotice } from "@/components/error-notice";
import { useLogin } from "@/features/auth/hooks/use-session";

export function LoginPage() {
  const { t } = useTranslation();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const login = useLogin();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    login.mutate({ username, password });
  };
  return (
    <section className="panel login" aria-labelledby="login-title">
      <h2 id="login-title">{t("auth.title")}</h2>
      <form className="stack" onSubmit={onSubmit}>
        <label className="field">
          <span>{t("auth.username")}</span>
          <input autoComplete="username" value={username} onChange={(event) => setUsername(event.target.value)} required />
        </label>
        <label className="field">
          <span>{t("auth.password")}</span>
          <input
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
            required
          />
        </label>
        <button type="submit" className="primary" disabled={login.isPending || !username || !password}>
          {login.isPending ? t("auth.signingIn") : t("auth.signIn")}
        </button>
        {login.error && <ErrorNotice error={login.error} />}
        <p className="muted small">{t("auth.hint")}</p>
      </form>
    </section>
  );
}
