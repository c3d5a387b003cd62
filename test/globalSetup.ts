// Global test setup: placeholder, filled in by the database test harness.
export default async function setup() {}
