export * from "./register-upload.ts";
export * from "./upload-fields.ts";
export * from "./upload-file.ts";
