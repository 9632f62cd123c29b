// Talking to the server: one request() for every call, its headers built in one place.
// Every action carries the page's header (so no other web site can post through this browser)
// and, when the page's address has one, the server's token.

const PAGE_HEADER = "X-Cubebot-Page";
const TOKEN_HEADER = "X-Cubebot-Token";
const token = new URLSearchParams(location.search).get("token");

/**
 * Send a request and return its JSON answer; throw an Error with the server's message.
 * `body` is sent as JSON unless `contentType` says otherwise (a picture); a POST without a
 * body sends `{}`.
 */
export async function request(path, { method = "POST", body, contentType = "application/json" } = {}) {
  const headers = {};
  let data;
  if (method !== "GET") {
    headers[PAGE_HEADER] = "1";
    if (token) headers[TOKEN_HEADER] = token;
    if (contentType) headers["Content-Type"] = contentType;
    data = contentType === "application/json" ? JSON.stringify(body ?? {}) : (body ?? "");
  }
  const response = await fetch(path, { method, headers, body: data });
  let answer;
  try {
    answer = await response.json();
  } catch {
    throw new Error(`${response.status} ${response.statusText}: the answer is not JSON`);
  }
  if (!response.ok) throw new Error(answer.error || `${response.status} ${response.statusText}`);
  return answer;
}
