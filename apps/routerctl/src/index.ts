export { eventToJson, eventToText, statusToJson, statusToText } from "./format.js";
