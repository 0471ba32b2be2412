import { useTranslation } from "react-i18next";

import type { Me } from "@/features/auth/api/session";
import { useLogout } from "@/features/auth/hooks/use-session";

export function UserMenu({ me }: { me: Me }) {
  const { t } = useTranslation();
  const logout = useLogout();
  return (
    <span className="user-menu" data-testid="user-menu">
      <span className="small">
        {me.username} <span className="role">{t(`auth.roles.${me.role}`)}</span>
      </span>
      <button type="button" className="ghost" onClick={() => logout.mutate()} disabled={logout.isPending}>
        {t("auth.signOut")}
      </button>
    </span>
  );
}
