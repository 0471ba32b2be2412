"""Users and roles: session login for the browser, tokens for REST clients; analyst and admin (staff)."""
