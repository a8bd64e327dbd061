import nodemailer from 'nodemailer';
import type { DeliveryMessage } from './message.js';

/** The SMTP part of the configuration (password from the environment or .env only). */
export interface SmtpSettings {
  host: string;
  port: number;
  user?: string;
  password?: string;
  from: string;
}

/** Sends one message through SMTP; throws on any refusal so the caller can retry. */
export async function sendEmail(smtp: SmtpSettings, to: readonly string[], message: DeliveryMessage): Promise<void> {
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    // 465 is TLS from the first byte; other ports upgrade with STARTTLS when the server offers it.
    secure: smtp.port === 465,
    auth: smtp.user ? { user: smtp.user, pass: smtp.password } : undefined,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  });
  try {
    await transport.sendMail({
      from: smtp.from,
      to: [...to],
      subject: message.subject,
      text: message.text,
      attachments: message.attachments.map((a) => ({ filename: a.name, path: a.path, contentType: 'text/html' })),
    });
  } finally {
    transport.close();
  }
}
