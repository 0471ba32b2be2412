import { useState } from "react";
import { createBrowserRouter, RouterProvider } from "react-router";

import { AdminOnly, Layout } from "@/app/layout";
import { AskPage } from "@/features/ask";
import { HistoryPage } from "@/features/history";
import { MarketStatus } from "@/features/market";
import { ParadigmsPage } from "@/features/paradigms";
import { ScreensPage } from "@/features/screens";
import { SqlConsole } from "@/features/sql-console";

export const routes = [
  {
    path: "/",
    element: <Layout />,
    children: [
      { index: true, element: <AskPage /> },
      { path: "screens", element: <ScreensPage /> },
      { path: "history", element: <HistoryPage /> },
      {
        path: "paradigms",
        element: (
          <AdminOnly>
            <ParadigmsPage />
          </AdminOnly>
        ),
      },
      { path: "console", element: <SqlConsole /> },
      { path: "market", element: <MarketStatus /> },
    ],
  },
];

export function AppRouter() {
  const [router] = useState(() => createBrowserRouter(routes));
  return <RouterProvider router={router} />;
}
