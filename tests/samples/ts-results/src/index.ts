export * from './asyncoption.js';
export * from './asyncresult.js';
export * from './result.js';
export * from './option.js';
