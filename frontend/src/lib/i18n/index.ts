import i18next from "i18next";
import { initReactI18next } from "react-i18next";

import { en } from "./en";
import { zh } from "./zh";

export const LANGUAGES = ["en", "zh"] as const;
export type Language = (typeof LANGUAGES)[number];

const STORAGE_KEY = "veriscreen.language";

export function initialLanguage(): Language {
  const saved = globalThis.localStorage?.getItem(STORAGE_KEY);
  if (saved === "en" || saved === "zh") return saved;
  return globalThis.navigator?.language?.toLowerCase().startsWith("zh") ? "zh" : "en";
}

export function rememberLanguage(language: Language): void {
  globalThis.localStorage?.setItem(STORAGE_KEY, language);
}

export function createI18n(language: Language = initialLanguage()) {
  const instance = i18next.createInstance();
  void instance.use(initReactI18next).init({
    resources: { en: { translation: en }, zh: { translation: zh } },
    lng: language,
    fallbackLng: "en",
    interpolation: { escapeValue: false }, // React escapes
    initAsync: false,
  });
  return instance;
}
