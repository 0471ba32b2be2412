import { useState } from "react";
import { createBrowserRouter, RouterProvider } from "react-router";

import { Layout } from "@/app/layout";
import { AskPanel } from "@/features/ask";
import { MarketStatus } from "@/features/market";
import { SqlConsole } from "@/features/sql-console";

export const routes = [
  {
    path: "/",
    element: <Layout />,
    children: [
      { index: true, element: <AskPanel /> },
      { path: "console", element: <SqlConsole /> },
      { path: "market", element: <MarketStatus /> },
    ],
  },
];

export function AppRouter() {
  const [router] = useState(() => createBrowserRouter(routes));
  return <RouterProvider router={router} />;
}
