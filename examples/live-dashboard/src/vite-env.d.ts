/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The gateway's base URL (http://127.0.0.1:4000); empty or unset: the page's own origin. */
  readonly VITE_API_URL?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
