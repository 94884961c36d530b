import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["**/node_modules/**", "data/**", "dist/**", "artifacts/**", "**/.prof/**", "bench/.out/**"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-namespace": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "no-console": ["error", { allow: ["error", "warn"] }]
    }
  },
  {
    files: ["app/**", "scripts/**", "test/**", "bench/**", "**/*.test.ts", "**/bin/**", "**/main.ts", "**/cli/**"],
    rules: { "no-console": "off" }
  }
)
