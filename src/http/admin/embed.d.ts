// Portal templates are imported as text (scripts/embed-views.ts).
declare module '*.liquid' {
  const text: string
  export default text
}
