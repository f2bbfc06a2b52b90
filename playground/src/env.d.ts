// Vite turns CSS imports into the bundle's stylesheet.
declare module "*.css";
