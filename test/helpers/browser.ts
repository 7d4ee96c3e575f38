// Browser harness for the admin portal (the entry point tests import). The portal part (Herald
// served on a random port, portal users, logged-in contexts) lands with the portal's login; the
// Chromium side (launch, page problems, axe, screenshots) is in ./chromium.ts.
export * from './chromium'
