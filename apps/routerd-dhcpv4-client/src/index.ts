// Placeholder so the workspace builds until this package lands (see its open issue).
export {};
