// A CSV opened in a spreadsheet runs a cell that starts with =, +, - or @ as a formula
// (=HYPERLINK(…) leaks data, DDE payloads run commands), and tab or carriage return lead some
// programs to the same. Such a cell gets a leading apostrophe, which spreadsheets read as "text"
// (OWASP's CSV injection advice). E.164 phone numbers start with + and are prefixed too.

const FORMULA_START = /^[=+\-@\t\r]/

/** The cell as written to a CSV meant for spreadsheets. */
export const spreadsheetCell = (value: string): string => (FORMULA_START.test(value) ? `'${value}` : value)
