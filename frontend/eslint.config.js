import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

const FEATURES = ["market", "ask", "auth", "screens", "history", "paradigms", "sql-console"];

// bulletproof-react boundaries: app -> features -> shared (components, lib). A feature never
// imports another feature or the app shell, and reaches its own files through the "@/" alias
// (so a relative "../../other-feature" path cannot slip past the rule).
const featureBoundaries = FEATURES.map((feature) => ({
  files: [`src/features/${feature}/**/*.{ts,tsx}`],
  rules: {
    "no-restricted-imports": [
      "error",
      {
        patterns: [
          {
            group: ["../*"],
            message: "Import through '@/…' so feature boundaries stay checkable.",
          },
          {
            group: ["@/features/*", `!@/features/${feature}`, "@/app", "@/app/*"],
            message: "Features must not import other features or the app shell; move shared code to src/components or src/lib.",
          },
        ],
      },
    ],
  },
}));

const sharedBoundaries = {
  files: ["src/components/**/*.{ts,tsx}", "src/lib/**/*.{ts,tsx}"],
  rules: {
    "no-restricted-imports": [
      "error",
      {
        patterns: [
          {
            group: ["@/features/*", "@/app", "@/app/*", "../features/*", "../app/*"],
            message: "Shared code must not depend on features or the app shell.",
          },
        ],
      },
    ],
  },
};

export default tseslint.config(
  { ignores: ["dist", "node_modules"] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    files: ["src/**/*.{ts,tsx}"],
    languageOptions: { globals: globals.browser },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    files: ["e2e/**/*.ts", "vite.config.ts", "eslint.config.js"],
    languageOptions: { globals: globals.node },
  },
  ...featureBoundaries,
  sharedBoundaries,
);
